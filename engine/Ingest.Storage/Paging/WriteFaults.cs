namespace Ingest.Storage.Paging;

/// <summary>
/// A test seam on the environment's file writes (journal records, journal zero-fill, data pages):
/// while <see cref="DiskFull"/> is set each of them fails the way a full file system fails a write,
/// with an <see cref="IOException"/> carrying ENOSPC. Costs one volatile read per write otherwise.
/// </summary>
internal sealed class WriteFaults
{
    private const int Enospc = 28;
    private volatile bool _diskFull;

    public bool DiskFull
    {
        get => _diskFull;
        set => _diskFull = value;
    }

    public void ThrowIfFailing(string path)
    {
        if (_diskFull)
        {
            throw new IOException($"No space left on device : '{path}'", Enospc);
        }
    }
}
