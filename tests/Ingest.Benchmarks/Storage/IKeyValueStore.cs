namespace Ingest.Benchmarks.Storage;

/// <summary>Ordered byte-string keys to byte-string values, in named trees, with durable write transactions.</summary>
internal interface IKeyValueStore : IStorageSystem
{
    /// <summary>Opens a named tree, creating it empty if it does not exist.</summary>
    TreeId OpenTree(string name);

    /// <summary>Begins the single write transaction; used on the thread that began it.</summary>
    IWriteTransaction BeginWrite();

    /// <summary>
    /// A reader for one thread, created once and reused: <see cref="IReadSession.BeginRead"/> and
    /// <see cref="IReadSession.EndRead"/> open and close read transactions on it.
    /// </summary>
    IReadSession OpenReadSession();

    /// <summary>
    /// Waits for background work that earlier commits left (Ingest's flusher copying committed pages from the journal
    /// into the data file), so a timed section that follows a setup load does not pay for the setup. LMDB and SQLite do
    /// that work inside their commit, so they have nothing to wait for.
    /// </summary>
    void Settle()
    {
    }
}
