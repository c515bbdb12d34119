using System.Runtime.InteropServices;

namespace Ingest.Storage.Paging;

/// <summary><c>madvise</c> hints (Linux). Failure only costs speed, so callers ignore the result.</summary>
internal static unsafe partial class MemoryAdvice
{
    public const int DontNeed = 4;
    public const int HugePage = 14;

    /// <summary>Maps the range's pages (page cache) into the page table now: their first read does not fault (Linux 5.14).</summary>
    public const int PopulateRead = 22;

    /// <summary>Faults the range in writable now (anonymous memory: zeroed by the kernel here, not on first touch; Linux 5.14).</summary>
    public const int PopulateWrite = 23;

    public static void Advise(void* address, nuint length, int advice)
    {
        if (OperatingSystem.IsLinux())
        {
            _ = Madvise(address, length, advice);
        }
    }

    [LibraryImport("libc", EntryPoint = "madvise", SetLastError = true)]
    private static partial int Madvise(void* address, nuint length, int advice);
}
