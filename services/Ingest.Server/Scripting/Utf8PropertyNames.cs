using System.Text;

namespace Ingest.Server.Scripting;

/// <summary>
/// Property names by their UTF-8 bytes: a name seen before is returned without decoding or
/// allocating. A fixed table of slots, each holding the last name that hashed to it, so a document
/// with many distinct names costs a decode per name and no growth. Not thread-safe.
/// </summary>
internal sealed class Utf8PropertyNames
{
    // Longer names (rare as property names) are decoded each time rather than kept.
    private const int MaxNameBytes = 64;
    private const int Slots = 512;

    private readonly (byte[] Utf8, string Name)?[] _slots = new (byte[], string)?[Slots];

    public string Get(ReadOnlySpan<byte> utf8)
    {
        if (utf8.Length > MaxNameBytes)
        {
            return Encoding.UTF8.GetString(utf8);
        }

        var hash = new HashCode();
        hash.AddBytes(utf8);
        ref var slot = ref _slots[(uint)hash.ToHashCode() % Slots];
        if (slot is { } known && utf8.SequenceEqual(known.Utf8))
        {
            return known.Name;
        }

        var name = Encoding.UTF8.GetString(utf8);
        slot = (utf8.ToArray(), name);
        return name;
    }
}
