namespace Ingest.Storage.Tests.Transactions;

/// <summary>
/// Bytes allocated per commit (deterministic, unlike time): the budgets are 1 KB per
/// single-put durable commit and 64 B per item of a 1,000-item batch. A commit used to copy the
/// whole page table, so with many unflushed pages every commit allocated tens of kilobytes.
/// </summary>
public sealed class CommitAllocationTests
{
    [Fact]
    public void A_single_put_commit_allocates_at_most_1_KB_with_many_unflushed_pages()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, Options());
        var rnd = new Random(7);
        Load(env, rnd, 20_000); // about 700 unflushed pages in the page table
        CommitSingles(env, rnd, 50); // warm up (JIT, pools, lists)

        const int commits = 200;
        var before = GC.GetAllocatedBytesForCurrentThread();
        CommitSingles(env, rnd, commits);
        var perCommit = (GC.GetAllocatedBytesForCurrentThread() - before) / (double)commits;

        Assert.True(env.UnflushedPageCount > 500, $"{env.UnflushedPageCount} unflushed pages");
        Assert.True(perCommit <= 1024, $"{perCommit:0} bytes allocated per single-put commit");
    }

    [Fact]
    public void A_batched_commit_allocates_at_most_64_bytes_per_item()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, Options());
        var rnd = new Random(8);
        Load(env, rnd, 20_000);
        Load(env, rnd, 1_000); // warm up

        const int batches = 10;
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var b = 0; b < batches; b++)
        {
            Load(env, rnd, 1_000);
        }

        var perItem = (GC.GetAllocatedBytesForCurrentThread() - before) / (batches * 1_000.0);
        Assert.True(perItem <= 64, $"{perItem:0.0} bytes allocated per item of a 1,000-item commit");
    }

    [Fact]
    public void Batched_commits_with_flushes_between_them_allocate_at_most_64_bytes_per_item()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, Options());
        var rnd = new Random(9);
        Load(env, rnd, 20_000);
        for (var warm = 0; warm < 3; warm++)
        {
            CommitsThenFlush(env, rnd); // fills the pools of page table nodes and slot arrays
        }

        const int cycles = 4;
        var before = GC.GetAllocatedBytesForCurrentThread(); // the flush runs on this thread too
        for (var c = 0; c < cycles; c++)
        {
            CommitsThenFlush(env, rnd);
        }

        var perItem = (GC.GetAllocatedBytesForCurrentThread() - before) / (cycles * 4 * 1_000.0);
        Assert.True(perItem <= 64, $"{perItem:0.0} bytes allocated per item of a 1,000-item commit, flushes included");
    }

    private static void CommitsThenFlush(StorageEnvironment env, Random rnd)
    {
        for (var b = 0; b < 4; b++)
        {
            Load(env, rnd, 1_000);
        }

        env.FlushNow();
    }

    /// <summary>Durable, no background flush (the page table keeps every page), journal files that the runs do not fill.</summary>
    private static StorageOptions Options()
    {
        var options = TestDirectory.Options(backgroundFlush: false, sync: SyncMode.Durable);
        options.JournalFileSize = 16 * 1024 * 1024;
        return options;
    }

    private static void Load(StorageEnvironment env, Random rnd, int items)
    {
        Span<byte> key = stackalloc byte[24];
        var value = new byte[150];
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < items; i++)
        {
            rnd.NextBytes(key);
            tree.Put(key, value);
        }

        tx.Commit();
    }

    private static void CommitSingles(StorageEnvironment env, Random rnd, int commits)
    {
        Span<byte> key = stackalloc byte[24];
        var value = new byte[150];
        for (var i = 0; i < commits; i++)
        {
            rnd.NextBytes(key);
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(key, value);
            tx.Commit();
        }
    }
}
