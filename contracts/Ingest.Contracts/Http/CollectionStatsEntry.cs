namespace Ingest.Contracts.Http;

/// <summary>A collection's counters.</summary>
/// <param name="Name">The collection, in the casing it was first written with.</param>
/// <param name="Count">Documents in it.</param>
/// <param name="BodyBytes">Total size of their bodies (the JSON, as readers see it).</param>
/// <param name="LastEtag">The etag of its last put or delete.</param>
public sealed record CollectionStatsEntry(string Name, long Count, long BodyBytes, long LastEtag)
{
    /// <summary>The bodies' bytes as stored: compressed where that paid, the JSON elsewhere.</summary>
    public long StoredBodyBytes { get; init; }

    /// <summary><see cref="BodyBytes"/> / <see cref="StoredBodyBytes"/> (1 when nothing is compressed or the collection is empty).</summary>
    public double CompressionRatio { get; init; }

    /// <summary>The dictionary new documents are compressed with (0: none yet).</summary>
    public long CompressionDictionary { get; init; }
}
