namespace Ingest.Storage;

/// <summary>How a commit is made durable.</summary>
public enum SyncMode
{
    /// <summary>Commit returns after the journal record is on stable storage (one fdatasync per commit).</summary>
    Durable = 0,

    /// <summary>
    /// Commit returns after the journal record is handed to the operating system, without syncing.
    /// A process crash loses nothing, but a power loss or kernel crash can lose recent commits.
    /// For tests and bulk imports only.
    /// </summary>
    NoSyncUnsafe = 1,
}
