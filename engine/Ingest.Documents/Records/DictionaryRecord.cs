using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A zstd dictionary (value of docs/dictionaries, keyed by its id, u32 big-endian), followed by the
/// folded name of the collection it was trained for and the dictionary itself.
/// <code>
///  0               8               12          14         16
///  | trained ticks | sample        | collection | reserved | collection UTF-8 | zstd dictionary |
///  | (UTC) i64     | documents i32 | bytes u16  | u16      | (folded)         | bytes           |
/// </code>
/// Written once, never changed; deleted in the transaction whose delete or overwrite takes its reference
/// count (docs/dictionary-refs) to 0, unless it is still its collection's current dictionary.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct DictionaryRecord
{
    public const int Size = 16;

    public long TrainedTicks;
    public int SampleDocuments;
    public ushort CollectionLength;
    public ushort Reserved;

    public static DictionaryRecord Read(ReadOnlySpan<byte> value) => MemoryMarshal.Read<DictionaryRecord>(value);

    public readonly ReadOnlySpan<byte> Collection(ReadOnlySpan<byte> value) => value.Slice(Size, CollectionLength);

    public readonly ReadOnlySpan<byte> Dictionary(ReadOnlySpan<byte> value) => value[(Size + CollectionLength)..];

    /// <summary>The bytes of dictionary <paramref name="id"/> in <paramref name="dictionaries"/> (docs/dictionaries of some snapshot), or null.</summary>
    public static byte[]? Load(Ingest.Storage.Trees.Tree? dictionaries, uint id)
    {
        Span<byte> key = stackalloc byte[4];
        WriteKey(key, id);
        return dictionaries != null && dictionaries.TryGet(key, out var value) ? Read(value).Dictionary(value).ToArray() : null;
    }

    /// <summary>The key of dictionary <paramref name="id"/>: 4 bytes big-endian, so keys sort by id.</summary>
    public static void WriteKey(Span<byte> key, uint id) => System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(key, id);
}
