namespace Ingest.Documents;

/// <summary>Counters of a document store, read from one snapshot.</summary>
/// <param name="LastEtag">The etag of the last put or delete.</param>
/// <param name="DocumentCount">Documents.</param>
/// <param name="TombstoneCount">Tombstones not purged yet.</param>
/// <param name="DocumentBytes">Total size of the JSON bodies.</param>
/// <param name="DeadLetterCount">Dead letters.</param>
/// <param name="Collections">Per collection (collections that ever held a document; empty ones have count 0).</param>
/// <param name="StorageBytes">Size on disk of the store's directory (data file and journal files), when read through <see cref="DocumentStore.GetStats"/>; 0 from a <see cref="DocumentReader"/>.</param>
public sealed record DocumentStoreStats(
    long LastEtag,
    long DocumentCount,
    long TombstoneCount,
    long DocumentBytes,
    long DeadLetterCount,
    IReadOnlyList<CollectionStats> Collections,
    long StorageBytes = 0);
