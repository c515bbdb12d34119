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

    internal DiskFullException(string filePath, IOException innerException, long? bytesNeeded = null)
        : this(filePath, innerException, bytesNeeded, FreeBytes(filePath))
    {
    }

    private DiskFullException(string filePath, IOException innerException, long? bytesNeeded, long? bytesFree)
        : base(Describe(filePath, innerException, bytesNeeded, bytesFree), innerException)
    {
        FilePath = filePath;
        BytesNeeded = bytesNeeded;
        BytesFree = bytesFree;
    }

    /// <summary>The file whose write failed, when known.</summary>
    public string? FilePath { get; }

    /// <summary>
    /// How many free bytes the failed write needs (the next journal file, the pages waiting to be flushed), when known:
    /// writing resumes once the file system has that much free, not merely some.
    /// </summary>
    public long? BytesNeeded { get; }

    /// <summary>The file system's free bytes when the write failed, when known.</summary>
    public long? BytesFree { get; }

    /// <summary>Free bytes of the file system holding <paramref name="path"/> (a file or a directory), or null when it cannot say.</summary>
    private static long? FreeBytes(string path)
    {
        var directory = System.IO.Directory.Exists(path) ? path : System.IO.Path.GetDirectoryName(path);
        return directory is not null && StorageSpace.FileSystemFree(directory) is >= 0 and var free ? free : null;
    }

    /// <summary>"64.0 MiB": a byte count as an operator reads it.</summary>
    public static string FormatBytes(long bytes) =>
        bytes >= 1L << 30 ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 30):0.0} GiB")
        : bytes >= 1L << 20 ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 20):0.0} MiB")
        : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{bytes / 1024.0:0.0} KiB");

    private static string Describe(string filePath, IOException inner, long? needed, long? free)
    {
        var room = (needed, free) switch
        {
            ({ } n, { } f) => $" Writing needs {FormatBytes(n)} free ({n} bytes) on that file system, which has {FormatBytes(f)}; free at least {FormatBytes(Math.Max(0, n - f))} more and the store resumes writing by itself.",
            ({ } n, null) => $" Writing needs {FormatBytes(n)} free ({n} bytes) on that file system; the store resumes writing by itself once it has.",
            _ => " Free space; the store resumes writing by itself.",
        };
        return $"The disk holding '{filePath}' is full: {inner.Message}.{room}";
    }

    /// <summary>Whether <paramref name="ex"/> says the file system is out of space.</summary>
    public static bool IsDiskFull(Exception ex) =>
        ex is DiskFullException
        || (ex is IOException && ex.HResult is Enospc or Edquot or WindowsDiskFull or WindowsHandleDiskFull);
}
