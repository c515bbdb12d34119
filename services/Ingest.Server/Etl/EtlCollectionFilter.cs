namespace Ingest.Server.Etl;

/// <summary>
/// Whether a change's collection, read as UTF-8 from the store, belongs to the task, and its name as
/// a string. A feed holds a few collections over and over, so each name is decoded and matched once
/// and then found by its bytes: reading a batch allocates no collection name per change. Used by one
/// reader at a time (the task's loop).
/// </summary>
internal sealed class EtlCollectionFilter(EtlTaskDefinition definition)
{
    // Past this many distinct names (a store with many collections), the rest are decoded each time.
    private const int MaxRemembered = 64;

    private readonly List<(byte[] Utf8, string Name, bool Included)> _known = [];

    /// <summary>True when the task sends changes of <paramref name="collectionUtf8"/>; <paramref name="name"/> is its name either way.</summary>
    public bool Includes(ReadOnlySpan<byte> collectionUtf8, out string name)
    {
        foreach (var (utf8, knownName, included) in _known)
        {
            if (collectionUtf8.SequenceEqual(utf8))
            {
                name = knownName;
                return included;
            }
        }

        name = System.Text.Encoding.UTF8.GetString(collectionUtf8);
        var includes = definition.Includes(name);
        if (_known.Count < MaxRemembered)
        {
            _known.Add((collectionUtf8.ToArray(), name, includes));
        }

        return includes;
    }
}
