namespace Ingest.Storage.Paging;

/// <summary>
/// A test seam on the environment's file writes (journal records, journal zero-fill, data pages):
/// while set, each of them fails the way a full file system fails a write, with an
/// <see cref="IOException"/> carrying ENOSPC. Costs one volatile read per write otherwise.
/// </summary>
internal sealed class WriteFaults
{
    private const int Enospc = 28;
    private volatile bool _journalFull;
    private volatile bool _dataFileFull;
    private volatile bool _journalSyncFull;

    /// <summary>Journal and data file writes fail.</summary>
    public bool DiskFull
    {
        get => _journalFull && _dataFileFull;
        set => _journalFull = _dataFileFull = value;
    }

    /// <summary>Only data file writes (the flusher's) fail.</summary>
    public bool DataFileFull
    {
        get => _dataFileFull;
        set => _dataFileFull = value;
    }

    /// <summary>Journal records are written, then their sync fails (what reached the file is unknown to the writer).</summary>
    public bool JournalSyncFull
    {
        get => _journalSyncFull;
        set => _journalSyncFull = value;
    }

    public void ThrowIfSyncFailing(string path)
    {
        if (_journalSyncFull)
        {
            throw new IOException($"fdatasync failed with errno {Enospc} : '{path}'", Enospc);
        }
    }

    public void ThrowIfFailing(string path, bool journal)
    {
        if (journal ? _journalFull : _dataFileFull)
        {
            throw new IOException($"No space left on device : '{path}'", Enospc);
        }
    }
}
