namespace Ingest.Storage.Tests.Compaction;

/// <summary>Compaction copies every tree into a fresh data file: same contents, fewer bytes, and the store goes on.</summary>
public sealed class CompactionTests
{
    [Fact]
    public void A_store_with_half_its_entries_deleted_reads_the_same_after_compaction_in_fewer_bytes()
    {
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed: 26, count: 20_000);
        var before = StoreContents.Read(dir.Path);
        var dataBefore = new FileInfo(dir.DataFile).Length;

        var result = StorageEnvironment.Compact(dir.Path, TestDirectory.Options());

        Assert.Equal(before, StoreContents.Read(dir.Path));
        var dataAfter = new FileInfo(dir.DataFile).Length;
        Assert.True(dataAfter < dataBefore * 0.75, $"the data file went from {dataBefore} to {dataAfter} bytes");
        Assert.True(result.BytesFreed > 0, $"{result}");
        Assert.True(result.TreesCopied >= 4);
        Assert.False(Directory.Exists(Path.Combine(dir.Path, "compacting")));
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.True(env.Verify().IsClean);
    }

    [Fact]
    public void Transaction_ids_go_on_from_the_old_store_and_a_crash_after_compaction_replays_later_commits()
    {
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed: 7, count: 3_000);
        long lastTx, docs;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            lastTx = env.LastCommittedTransactionId;
            using var before = env.BeginRead();
            docs = before.OpenTree("docs")!.Count;
        }

        StorageEnvironment.Compact(dir.Path, TestDirectory.Options());
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false)))
        {
            Assert.Equal(lastTx, env.LastCommittedTransactionId);
            for (var i = 0; i < 50; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("after").Put(Keys.Of(i), Keys.Of("v"));
                tx.Commit();
            }

            Assert.Equal(lastTx + 50, env.LastCommittedTransactionId);
            env.SimulateCrashOnDispose = true;
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var read = reopened.BeginRead();
        Assert.Equal(50, read.OpenTree("after")!.Count);
        Assert.Equal(docs, read.OpenTree("docs")!.Count);
        Assert.True(reopened.Verify().IsClean);
    }

    [Fact]
    public void An_unfinished_copy_left_by_a_crash_is_deleted_at_open_and_the_store_is_untouched()
    {
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed: 3, count: 2_000);
        var before = StoreContents.Read(dir.Path);
        var work = Path.Combine(dir.Path, "compacting");
        Directory.CreateDirectory(work);
        File.WriteAllBytes(Path.Combine(work, "data.ingest"), new byte[12345]);

        Assert.Equal(before, StoreContents.Read(dir.Path));
        Assert.False(Directory.Exists(work));
    }

    [Fact]
    public void Compacting_an_open_store_fails_and_changes_nothing()
    {
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed: 5, count: 1_000);
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.Throws<IOException>(() => StorageEnvironment.Compact(dir.Path, TestDirectory.Options()));
    }

    [Fact]
    public void Space_counts_free_pages_and_compaction_gives_them_back()
    {
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed: 11, count: 10_000);
        StorageSpace before;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            before = env.GetSpace();
        }

        StorageEnvironment.Compact(dir.Path, TestDirectory.Options());
        using var compacted = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var after = compacted.GetSpace();
        Assert.True(before.FreePageBytes > 0, $"{before}");
        Assert.True(after.FreePageBytes < before.FreePageBytes / 4, $"before {before}, after {after}");
        Assert.Equal(new FileInfo(dir.DataFile).Length, after.DataFileBytes);
        Assert.True(after.FileSystemFreeBytes > 0);
    }
}
