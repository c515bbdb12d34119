using Ingest.Documents.Records;
using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Documents.Writing;

/// <summary>A collection's etag set and counters as one transaction changes them; counters are written back once, at its end.</summary>
internal sealed class CollectionEntry(byte[] foldedUtf8, byte[] nameUtf8, FixedSizeTree etags, CollectionStatsRecord stats)
{
    public byte[] FoldedUtf8 { get; } = foldedUtf8;

    public byte[] NameUtf8 { get; } = nameUtf8;

    public FixedSizeTree Etags { get; } = etags;

    public CollectionStatsRecord Stats = stats;

    public bool Dirty { get; set; }

    public CompressionStateRecord Compression;

    public bool CompressionDirty { get; set; }
}
