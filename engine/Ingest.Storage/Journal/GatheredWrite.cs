using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Journal;

/// <summary>
/// pwritev: writes scattered pieces of memory to consecutive file offsets in one call, so a commit
/// record goes from the scratch pages to the file without being copied into one buffer first
/// (for a bulk load that buffer was tens of megabytes, freshly faulted in on every commit).
/// </summary>
internal static unsafe partial class GatheredWrite
{
    /// <summary>The most pieces one call takes (Linux's IOV_MAX).</summary>
    private const int MaxVectorsPerCall = 1024;

    public static bool IsSupported => OperatingSystem.IsLinux();

    /// <summary>Writes all pieces at <paramref name="offset"/>, retrying short writes. Modifies the vectors.</summary>
    public static void Write(SafeFileHandle handle, IoVector* vectors, int count, long offset)
    {
        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            var fd = (int)handle.DangerousGetHandle();
            var next = 0;
            while (next < count)
            {
                if (vectors[next].Length == 0)
                {
                    next++;
                    continue;
                }

                var written = NativeMethods.PWriteV(fd, vectors + next, Math.Min(count - next, MaxVectorsPerCall), offset);
                if (written < 0)
                {
                    var errno = Marshal.GetLastPInvokeError();
                    if (errno == Eintr)
                    {
                        continue;
                    }

                    // The errno as HResult, as .NET's own IOExceptions carry it on Unix (ENOSPC = 28).
                    throw new IOException($"pwritev failed with errno {errno}", errno);
                }

                offset += written;
                while (written > 0)
                {
                    var piece = (long)vectors[next].Length;
                    if (written >= piece)
                    {
                        written -= piece;
                        vectors[next].Length = 0;
                        next++;
                    }
                    else
                    {
                        vectors[next].Base += written;
                        vectors[next].Length -= (nuint)written;
                        written = 0;
                    }
                }
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    private const int Eintr = 4;

    private static partial class NativeMethods
    {
        [LibraryImport("libc", EntryPoint = "pwritev", SetLastError = true)]
        public static partial long PWriteV(int fd, IoVector* vectors, int count, long offset);
    }
}
