namespace Ingest.Documents;

/// <summary>Counters of one collection.</summary>
/// <param name="Name">The collection, in the casing it was first written with.</param>
/// <param name="Count">Documents in it.</param>
/// <param name="BodyBytes">Total size of their JSON bodies.</param>
/// <param name="LastEtag">The etag of the last put or delete in it (what an index of the collection must reach to be current).</param>
public sealed record CollectionStats(string Name, long Count, long BodyBytes, long LastEtag)
{
    /// <summary>
    /// The bodies' bytes as stored: compressed where that paid, the JSON elsewhere (<see cref="BodyBytes"/> /
    /// this is the compression ratio). Kept in the write transaction, not counted by a scan.
    /// </summary>
    public long StoredBodyBytes { get; init; }

    /// <summary>The dictionary the collection's new documents are compressed with (0: none yet).</summary>
    public long DictionaryId { get; init; }
}
