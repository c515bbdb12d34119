using Ingest.Storage.Journal;
using Ingest.Storage.Paging;

namespace Ingest.Storage;

/// <summary>An environment's bytes on disk (<see cref="StorageEnvironment.GetSpace"/>).</summary>
/// <param name="DataFileBytes">The data file's length.</param>
/// <param name="JournalBytes">The journal files' lengths, spares included.</param>
/// <param name="FreePageBytes">
/// Bytes inside the data file that hold no live page: freed pages (reused by later writes) and the tail the file grew
/// ahead of use. <see cref="StorageEnvironment.Compact"/> gives them back.
/// </param>
/// <param name="FileSystemFreeBytes">Bytes the file system holding the environment has free for this process.</param>
public sealed record StorageSpace(long DataFileBytes, long JournalBytes, long FreePageBytes, long FileSystemFreeBytes)
{
    /// <summary>The data file and the journal files.</summary>
    public long TotalBytes => DataFileBytes + JournalBytes;

    /// <summary>The data file and journal files in <paramref name="directory"/>, in bytes.</summary>
    internal static long FilesBytes(string directory) => FileBytes(Path.Combine(directory, DataFile.FileName)) + JournalFilesBytes(directory);

    internal static long JournalFilesBytes(string directory)
    {
        long bytes = 0;
        foreach (var file in new DirectoryInfo(directory).EnumerateFiles(JournalFile.Prefix + "*"))
        {
            bytes += file.Length;
        }

        return bytes;
    }

    internal static long FileBytes(string path)
    {
        var info = new FileInfo(path);
        return info.Exists ? info.Length : 0;
    }

    /// <summary>Free bytes of the file system holding <paramref name="directory"/>, or -1 when it cannot be told.</summary>
    internal static long FileSystemFree(string directory)
    {
        try
        {
            return new DriveInfo(directory).AvailableFreeSpace;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return -1;
        }
    }
}
