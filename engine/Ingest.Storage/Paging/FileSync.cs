using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Paging;

/// <summary>
/// fdatasync where the platform has it: it skips the metadata (mtime) flush that fsync does,
/// and journal files are preallocated so appending to them changes no other metadata.
/// </summary>
internal static partial class FileSync
{
    public static void DataSync(SafeFileHandle handle)
    {
        if (OperatingSystem.IsLinux())
        {
            var added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                if (NativeMethods.FDataSync((int)handle.DangerousGetHandle()) != 0)
                {
                    // The errno as HResult, as .NET's own IOExceptions carry it on Unix (ENOSPC = 28).
                    var errno = Marshal.GetLastPInvokeError();
                    throw new IOException($"fdatasync failed with errno {errno}", errno);
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
        else
        {
            RandomAccess.FlushToDisk(handle);
        }
    }

    /// <summary>
    /// Makes a directory's entries (created, renamed, deleted files) durable. Best effort: false where the platform has
    /// no directory sync (only Linux does it here) or the directory could not be opened or synced.
    /// </summary>
    public static bool SyncDirectory(string directory)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        var fd = NativeMethods.Open(directory, 0);
        if (fd < 0)
        {
            return false;
        }

        var synced = NativeMethods.FSync(fd) == 0;
        _ = NativeMethods.Close(fd);
        return synced;
    }

    private static partial class NativeMethods
    {
        [LibraryImport("libc", EntryPoint = "fdatasync", SetLastError = true)]
        public static partial int FDataSync(int fd);

        [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
        public static partial int FSync(int fd);

        [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
        public static partial int Open(string path, int flags);

        [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
        public static partial int Close(int fd);
    }
}
