namespace Ingest.Contracts.Http;

/// <summary>The document store's counters.</summary>
/// <param name="LastEtag">The etag of the last put or delete.</param>
/// <param name="Commits">Storage transactions committed since the store opened.</param>
/// <param name="Batches">Write batches committed since the store opened (several share a commit under group commit).</param>
/// <param name="JournalSyncs">Journal syncs since the store opened.</param>
/// <param name="Documents">Documents.</param>
/// <param name="Tombstones">Tombstones not purged yet.</param>
/// <param name="DocumentBytes">Total size of the JSON bodies.</param>
/// <param name="DeadLetters">Dead letters.</param>
/// <param name="StorageBytes">Size of the store's files on disk.</param>
/// <param name="Disk">The store's data file, journal files and the free pages inside them.</param>
/// <param name="FileSystemFreeBytes">Free bytes of the file system holding the data directory (null when it cannot be told).</param>
public sealed record StoreStatsEntry(
    long LastEtag,
    long Commits,
    long Batches,
    long JournalSyncs,
    long Documents,
    long Tombstones,
    long DocumentBytes,
    long DeadLetters,
    long StorageBytes,
    DiskSpaceEntry? Disk = null,
    long? FileSystemFreeBytes = null);
