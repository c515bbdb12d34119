using Ingest.Storage.Journal;
using Ingest.Storage.Paging;

namespace Ingest.Storage;

/// <summary>
/// Unjournaled builds (<see cref="StorageOptions.UnjournaledBuild"/>). While the <c>build</c> marker file exists in the
/// directory, commits are published and flushed to the data file but not journaled: each page a batch writes reaches
/// the disk once, by the flusher, instead of once in the journal and again in the data file, and no commit syncs. The
/// marker is durable before the data file exists, and removed only once the data file holds every commit and is
/// synced, so an open that finds it knows the data file may be torn, and discards it: the content of a build is
/// derived data its owner produces again from the start.
/// </summary>
public sealed unsafe partial class StorageEnvironment
{
    internal const string BuildMarkerFileName = "build";

    private volatile bool _building;

    /// <summary>
    /// True while the environment is an unjournaled build: its commits are not durable one by one (a crash discards
    /// everything since the build began) until <see cref="TryFinishBuild"/> succeeds or the environment closes cleanly.
    /// </summary>
    public bool IsBuilding => _building;

    /// <summary>
    /// Ends an unjournaled build: writes every committed page to the data file, syncs it and removes the build marker,
    /// so from here on commits are journaled and a crash keeps everything committed so far. False (nothing changes)
    /// when a read transaction still pins an older snapshot, so not every commit could be written; try again later.
    /// True at once when the environment is not building. Must not be called with a write transaction open on this thread.
    /// </summary>
    public bool TryFinishBuild()
    {
        ThrowIfDisposed();
        if (!_building)
        {
            return true;
        }

        if (_activeWriter != null && _writerThread == Environment.CurrentManagedThreadId)
        {
            throw new InvalidOperationException("This thread has an active write transaction; commit or dispose it before finishing the build.");
        }

        _writerLock.Wait(); // no commit may slip in unjournaled between the flush and the marker's removal
        try
        {
            if (!_building)
            {
                return true;
            }

            Flush(ignoreReaders: false);
            if (_data.Header.LastAppliedTx < Volatile.Read(ref _current).TxId)
            {
                return false; // a reader kept the flush short of the last commit
            }

            EndBuild();
            return true;
        }
        finally
        {
            _writerLock.Release();
        }
    }

    /// <summary>
    /// Prepares a build before the data file opens: an unfinished build (the marker left by a crash) loses its data file
    /// and journals; a new environment opened with <see cref="StorageOptions.UnjournaledBuild"/> gets the marker, made
    /// durable before the data file is created. Returns whether the environment opens as a build.
    /// </summary>
    private static bool PrepareBuild(string directory, StorageOptions options)
    {
        var marker = Path.Combine(directory, BuildMarkerFileName);
        if (File.Exists(marker))
        {
            File.Delete(Path.Combine(directory, DataFile.FileName));
            foreach (var journal in System.IO.Directory.EnumerateFiles(directory, JournalFile.Prefix + "*"))
            {
                File.Delete(journal);
            }

            FileSync.SyncDirectory(directory);
            return true;
        }

        if (!options.UnjournaledBuild || File.Exists(Path.Combine(directory, DataFile.FileName)))
        {
            return false;
        }

        using (var stream = new FileStream(marker, FileMode.CreateNew, FileAccess.Write))
        {
            stream.Flush(flushToDisk: true);
        }

        FileSync.SyncDirectory(directory);
        return true;
    }

    /// <summary>The data file holds every commit and is synced: remove the marker (durably) and journal from now on.</summary>
    private void EndBuild()
    {
        File.Delete(Path.Combine(Directory, BuildMarkerFileName));
        FileSync.SyncDirectory(Directory);
        _building = false;
    }
}
