using System.Diagnostics;
using Ingest.Storage.Paging;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Compaction;

/// <summary>
/// Compacts a closed environment by copying every tree, entry by entry in key order, into a fresh data file in the
/// <see cref="WorkFolder"/> subfolder and renaming it over the old one. Copied in order, trees come out dense (an
/// append keeps the left page of a split full) and the free pages of the old file are left behind.
/// <para>
/// Crash safety: the old data file is not touched until the rename. The copy is built in its own environment; once
/// the old environment has closed cleanly (its journal fully applied), the copy's header is given the old header's
/// transaction and journal bookkeeping (so the journal files left in the directory mean to the copy exactly what they
/// meant to the old file, and transaction ids go on from the old ones), the copy is synced, and one rename replaces
/// the old file; the directory is synced after. A crash before the rename leaves the old store as it was (the next
/// open deletes the unfinished copy); after it, the copy is complete. Copying a tree move-by-move instead (tail pages
/// moved down, parents repointed, file truncated) would need every page type to know its parent: this engine's pages
/// do not, so a copy is what the layout allows.
/// </para>
/// </summary>
internal static class StorageCompactor
{
    /// <summary>Where the copy is built; deleted by <see cref="StorageEnvironment.Open"/> when a crash left it.</summary>
    public const string WorkFolder = "compacting";

    /// <summary>A copy transaction commits once it holds this many pages (64 MiB), to bound scratch memory.</summary>
    private const int PagesPerCommit = 8192;

    public static CompactionResult Run(string directory, StorageOptions? options)
    {
        options ??= new StorageOptions();
        var started = Stopwatch.GetTimestamp();
        directory = Path.GetFullPath(directory);
        var before = StorageSpace.FilesBytes(directory);
        var work = Path.Combine(directory, WorkFolder);
        long trees = 0;
        FileHeader oldHeader;
        using (var old = StorageEnvironment.Open(directory, options))
        {
            try
            {
                CopyAll(old, work, options, ref trees);
            }
            catch
            {
                // The copy is worthless, and on a full disk its space is wanted back at once.
                DeleteQuietly(work);
                throw;
            }
        }

        string copyPath;
        try
        {
            using (var handle = File.OpenHandle(Path.Combine(directory, DataFile.FileName), FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
            {
                oldHeader = DataFile.ReadHeader(handle, Path.Combine(directory, DataFile.FileName));
            }

            if (oldHeader.FirstJournal <= oldHeader.LastJournal)
            {
                // The old environment could not apply its journal as it closed (a full disk): its files still matter.
                throw new IOException($"Compaction of '{directory}' stopped: the store's journal could not be applied to its data file (is the disk full?); nothing was changed.");
            }

            copyPath = Path.Combine(work, DataFile.FileName);
            using (var handle = File.OpenHandle(copyPath, FileMode.Open, FileAccess.ReadWrite, FileShare.None))
            {
                var header = DataFile.ReadHeader(handle, copyPath);
                if (header.FirstJournal <= header.LastJournal)
                {
                    // The copy's close could not write everything into its data file (a full disk): it is not whole.
                    throw new IOException($"Compaction of '{directory}' stopped: the copy could not be completed (is the disk full?); nothing was changed.");
                }

                // The file grows in steps ahead of use; the copy needs only the pages it allocated.
                Span<byte> nextPage = stackalloc byte[8];
                RandomAccess.Read(handle, nextPage, (StatePage.PageNumber * PageHeader.PageSize) + StatePage.NextPageOffset);
                RandomAccess.SetLength(handle, System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(nextPage) * PageHeader.PageSize);
                var adopted = oldHeader with { StatePage = header.StatePage, Sequence = header.Sequence + 1 };

                // Both slots, so neither can offer the copy's own bookkeeping (its transaction ids start from 1).
                DataFile.WriteHeader(handle, adopted);
                DataFile.WriteHeader(handle, adopted with { Sequence = adopted.Sequence + 1 });
                RandomAccess.FlushToDisk(handle);
            }

            SwapIn(directory, copyPath, oldHeader);
        }
        catch
        {
            DeleteQuietly(work);
            throw;
        }

        Directory.Delete(work, recursive: true);
        var after = StorageSpace.FilesBytes(directory);
        return new CompactionResult(before, after, trees, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>Copies every tree of <paramref name="old"/>'s last snapshot into a new environment in <paramref name="work"/>.</summary>
    private static void CopyAll(StorageEnvironment old, string work, StorageOptions options, ref long trees)
    {
        // Open deleted any copy a crash left; the copy gets no journal syncs: it counts only once synced and renamed.
        var copyOptions = new StorageOptions
        {
            SyncMode = SyncMode.NoSyncUnsafe,
            JournalFileSize = options.JournalFileSize,
            InitialJournalFileSize = options.InitialJournalFileSize,
        };
        using var copy = StorageEnvironment.Open(work, copyOptions);
        using var read = old.BeginRead();
        foreach (var (name, kind, valueSize) in TreeDirectory.List(read.Pages))
        {
            Copy(read, copy, name, kind, valueSize);
            trees++;
        }
    }

    private static void DeleteQuietly(string work)
    {
        try
        {
            if (Directory.Exists(work))
            {
                Directory.Delete(work, recursive: true);
            }
        }
        catch (IOException)
        {
            // The next open of the environment deletes it.
        }
    }

    /// <summary>Renames the copy over the data file, holding the environment's lock so no open slips in between.</summary>
    private static void SwapIn(string directory, string copyPath, FileHeader oldHeader)
    {
        using var lockFile = StorageEnvironment.LockDirectory(directory);
        var dataPath = Path.Combine(directory, DataFile.FileName);
        using (var handle = File.OpenHandle(dataPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
        {
            if (DataFile.ReadHeader(handle, dataPath).Sequence != oldHeader.Sequence)
            {
                throw new IOException($"Compaction of '{directory}' stopped: the store was opened and changed while it was being compacted; nothing was changed.");
            }
        }

        File.Move(copyPath, dataPath, overwrite: true);
        FileSync.SyncDirectory(directory);
    }

    private static void Copy(ReadTransaction read, StorageEnvironment copy, string name, byte kind, int valueSize)
    {
        var tx = copy.BeginWrite();
        try
        {
            switch (kind)
            {
                case TreeDirectory.KindTree:
                {
                    var cursor = read.OpenTree(name)!.CreateCursor();
                    var target = tx.CreateTree(name);
                    for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
                    {
                        target.Put(cursor.Key, cursor.Value);
                        if (tx.DirtyPageCount >= PagesPerCommit)
                        {
                            tx = Renew(copy, tx);
                            target = tx.CreateTree(name);
                        }
                    }

                    break;
                }

                case TreeDirectory.KindFixed:
                {
                    var cursor = read.OpenFixedSizeTree(name)!.CreateCursor();
                    var target = tx.CreateFixedSizeTree(name, valueSize);
                    for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
                    {
                        target.Put(cursor.Key, cursor.Value);
                        if (tx.DirtyPageCount >= PagesPerCommit)
                        {
                            tx = Renew(copy, tx);
                            target = tx.CreateFixedSizeTree(name, valueSize);
                        }
                    }

                    break;
                }

                case TreeDirectory.KindPostingList:
                {
                    var ids = read.OpenPostingList(name)!.Iterate();
                    var target = tx.CreatePostingList(name);
                    Span<long> buffer = new long[Math.Max(4096, PostingListIterator.MinBufferLength)];
                    for (int n; (n = ids.Fill(buffer)) > 0;)
                    {
                        target.Update(buffer[..n], []);
                        if (tx.DirtyPageCount >= PagesPerCommit)
                        {
                            tx = Renew(copy, tx);
                            target = tx.CreatePostingList(name);
                        }
                    }

                    break;
                }

                default:
                    throw new StorageCorruptionException($"The directory of trees names '{name}' with an unknown kind {kind}", read.Snapshot.Map.Path, 0);
            }

            tx.Commit();
        }
        finally
        {
            tx.Dispose();
        }
    }

    private static WriteTransaction Renew(StorageEnvironment copy, WriteTransaction tx)
    {
        tx.Commit();
        tx.Dispose();
        return copy.BeginWrite();
    }
}
