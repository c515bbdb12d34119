using Ingest.Storage.Compaction;
using Ingest.Storage.Paging;

namespace Ingest.Storage;

/// <summary>What the environment's files take on disk, and compaction, which gives free pages back.</summary>
public sealed unsafe partial class StorageEnvironment
{
    /// <summary>The environment's bytes on disk and the free pages inside them, as of the last commit.</summary>
    public StorageSpace GetSpace()
    {
        ThrowIfDisposed();
        var dataBytes = StorageSpace.FileBytes(_data.Path);
        long freePages;
        using (var read = BeginRead())
        {
            var state = read.Snapshot.GetPage(StatePage.PageNumber);
            var tail = (dataBytes / PageHeader.PageSize) - StatePage.GetNextPage(state);
            freePages = StatePage.GetFreeCount(state) + Math.Max(0, tail);
        }

        return new StorageSpace(dataBytes, StorageSpace.JournalFilesBytes(Directory), freePages * PageHeader.PageSize, StorageSpace.FileSystemFree(Directory));
    }

    /// <summary>Pages allocated so far as of the last commit (the high-water mark freed pages are reused below).</summary>
    internal long AllocatedPages
    {
        get
        {
            using var read = BeginRead();
            return StatePage.GetNextPage(read.Snapshot.GetPage(StatePage.PageNumber));
        }
    }

    /// <summary>
    /// The pages each tree holds in the last committed snapshot, by tree name ("$root": the directory of trees,
    /// "$state": the state page and free-space bitmaps): where an environment's bytes go. Walks every page, as
    /// <see cref="Verify"/> does.
    /// </summary>
    internal IReadOnlyDictionary<string, long> CountPagesByTree()
    {
        ThrowIfDisposed();
        var slot = _slots.Acquire(Volatile.Read(ref _current).TxId, out var token);
        try
        {
            var verifier = new Verification.StorageVerifier(Volatile.Read(ref _current));
            verifier.Run();
            return verifier.PagesByTree;
        }
        finally
        {
            _slots.Release(slot, token);
        }
    }

    /// <summary>
    /// Compacts the environment in <paramref name="directory"/>, which must not be open: copies every tree into a
    /// fresh data file (dense, without the free pages of the old one) and renames it over the old file. Needs free
    /// space for the copy (about the live pages' size). Crash safe: until the rename the old file is untouched, and the
    /// next <see cref="Open"/> deletes an unfinished copy.
    /// </summary>
    /// <exception cref="IOException">The environment is open elsewhere, or the disk is full (nothing is changed).</exception>
    public static CompactionResult Compact(string directory, StorageOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        return StorageCompactor.Run(directory, options);
    }

    /// <summary>Takes the environment's lock file, as <see cref="Open"/> does, without opening it.</summary>
    internal static FileStream LockDirectory(string directory)
    {
        var lockPath = Path.Combine(directory, LockFileName);
        try
        {
            return new FileStream(lockPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException ex)
        {
            throw new IOException($"The storage environment in '{directory}' is already open (lock file '{lockPath}' is held).", ex);
        }
    }

    /// <summary>Deletes the copy a compaction left when it crashed before its rename (the data file beside it is whole).</summary>
    private static void DeleteUnfinishedCompaction(string directory)
    {
        var work = Path.Combine(directory, StorageCompactor.WorkFolder);
        if (System.IO.Directory.Exists(work))
        {
            System.IO.Directory.Delete(work, recursive: true);
        }
    }
}
