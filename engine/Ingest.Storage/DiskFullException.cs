namespace Ingest.Storage;

/// <summary>
/// A write to the journal or the data file failed because the file system is full (ENOSPC, or a
/// quota). Nothing of the failed transaction is visible; the environment stays open and the next
/// commit (or the background flusher, which retries) succeeds once space is available.
/// </summary>
public sealed class DiskFullException : IOException
{
    private const int Enospc = 28;
    private const int Edquot = 122;
    private const int WindowsDiskFull = unchecked((int)0x80070070);
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);

    public DiskFullException()
    {
    }

    public DiskFullException(string message)
        : base(message)
    {
    }

    public DiskFullException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    internal DiskFullException(string filePath, IOException innerException)
        : base($"The disk holding '{filePath}' is full: {innerException.Message}. Free space; the store resumes writing by itself.", innerException)
    {
        FilePath = filePath;
    }

    /// <summary>The file whose write failed, when known.</summary>
    public string? FilePath { get; }

    /// <summary>Whether <paramref name="ex"/> says the file system is out of space.</summary>
    public static bool IsDiskFull(Exception ex) =>
        ex is DiskFullException
        || (ex is IOException && ex.HResult is Enospc or Edquot or WindowsDiskFull or WindowsHandleDiskFull);
}
