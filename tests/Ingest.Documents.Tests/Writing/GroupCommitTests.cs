using System.Globalization;
using Ingest.Documents.Compression;
using Ingest.Documents.Writing;
using Ingest.Storage;
using Xunit.Abstractions;

namespace Ingest.Documents.Tests.Writing;

public sealed class GroupCommitTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Concurrent_single_document_batches_all_land_and_share_journal_syncs()
    {
        const int Writers = 64;
        const int BatchesPerWriter = 1000;
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);

        var started = DateTime.UtcNow;
        var tasks = Enumerable.Range(0, Writers).Select(w => Task.Run(async () =>
        {
            var batch = new WriteBatch();
            for (var i = 0; i < BatchesPerWriter; i++)
            {
                batch.Clear();
                batch.Put($"w{w}/{i}", "Items", $"{{\"w\":{w},\"i\":{i}}}").SetSourcePosition("test", w, i + 1);
                await store.WriteAsync(batch);
            }
        })).ToArray();
        await Task.WhenAll(tasks);

        var stats = store.GetStats();
        output.WriteLine($"{store.BatchCount} batches in {store.CommitCount} commits, {store.JournalSyncCount} journal syncs ({(DateTime.UtcNow - started).TotalSeconds:N1} s)");
        Assert.Equal(Writers * BatchesPerWriter, stats.DocumentCount);
        Assert.Equal(Writers * BatchesPerWriter, store.LastEtag);
        Assert.Equal(Writers * BatchesPerWriter, store.BatchCount);
        Assert.True(store.CommitCount * 8 < store.BatchCount, $"{store.CommitCount} commits for {store.BatchCount} batches");

        // What the engine itself counted: one sync per shared commit, far below one per batch.
        Assert.InRange(store.JournalSyncCount, 1, store.CommitCount + 1);
        Assert.True(store.JournalSyncCount * 8 < store.BatchCount, $"{store.JournalSyncCount} journal syncs for {store.BatchCount} batches");
        for (var w = 0; w < Writers; w++)
        {
            Assert.Equal(BatchesPerWriter, store.GetSourcePosition("test", w)!.Value.Position.NextOffset);
            Assert.NotNull(store.Get(string.Create(CultureInfo.InvariantCulture, $"W{w}/{BatchesPerWriter - 1}")));
        }
    }

    [Fact]
    public async Task An_invalid_batch_fails_alone_while_concurrent_valid_batches_commit()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);

        var tasks = Enumerable.Range(0, 200).Select(i => Task.Run(async () =>
        {
            var batch = new WriteBatch().Put($"ok/{i}", "C", "{}");
            if (i % 10 == 0)
            {
                batch.Put($"bad/{i}", "C", "{not json");
            }

            try
            {
                await store.WriteAsync(batch);
                return true;
            }
            catch (InvalidDocumentException ex)
            {
                Assert.Equal($"bad/{i}", ex.DocumentId);
                return false;
            }
        })).ToArray();
        var outcomes = await Task.WhenAll(tasks);

        Assert.Equal(180, outcomes.Count(o => o));
        Assert.Equal(180, store.GetStats().DocumentCount);
        for (var i = 0; i < 200; i++)
        {
            Assert.Equal(i % 10 != 0, store.Get($"ok/{i}") != null);
        }
    }

    [Fact]
    public async Task A_write_failing_inside_a_merged_transaction_fails_alone()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);

        // Progress for an unregistered consumer throws while the transaction is applied, not at
        // validation; whatever it was merged with is retried on its own and commits.
        var writes = Enumerable.Range(0, 100).Select(i => store.WriteAsync(new WriteBatch().Put($"d/{i}", "C", "{}"))).ToList();
        var progress = store.ReportProgressAsync("nobody", 1);
        writes.AddRange(Enumerable.Range(100, 100).Select(i => store.WriteAsync(new WriteBatch().Put($"d/{i}", "C", "{}"))));

        await Assert.ThrowsAsync<InvalidOperationException>(() => progress);
        await Task.WhenAll(writes);
        Assert.Equal(200, store.GetStats().DocumentCount);
        Assert.Equal(200, store.LastEtag);
    }

    [Fact]
    public async Task Writing_the_same_batch_twice_concurrently_is_refused()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);
        var batch = new WriteBatch();
        for (var i = 0; i < 2000; i++)
        {
            batch.Put($"d/{i}", "C", "{}");
        }

        // Hold the writer thread, so the batch is surely still in flight when it is written again (the
        // first commit of a store got fast enough to finish between an IsCompleted check and the next line).
        using var release = new ManualResetEventSlim();
        var paused = store.BeginReadWhileWritesPausedAsync(reader =>
        {
            release.Wait();
            return reader;
        });
        var first = store.WriteAsync(batch);
        Assert.False(first.IsCompleted);
        Assert.Throws<InvalidOperationException>(() => { _ = store.WriteAsync(batch); });
        Assert.Throws<InvalidOperationException>(() => batch.Put("x", "C", "{}"));
        release.Set();

        (await paused).Dispose();
        await first;
        Assert.Equal(2000, store.GetStats().DocumentCount);
    }

    [Fact]
    public async Task A_failure_after_the_commit_completes_the_merged_writes_without_applying_them_a_second_time()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options().Storage);
        var commits = 0;
        using var decompressors = new DecompressorPool();
        using var writer = new GroupCommitWriter(env, long.MaxValue, new TransactionWriter(new CompressionWriter(TestDirectory.Options(), decompressors, new BatchCompressor(TestDirectory.Options(), _ => null)), new Ingest.Documents.Expiration.CurrentExpirationRules(), TestDirectory.Options().MaxJsonDepth), _ =>
        {
            if (Interlocked.Increment(ref commits) == 2)
            {
                throw new InvalidOperationException("publishing the etag failed");
            }
        });
        using var firstStarted = new ManualResetEventSlim();
        using var releaseFirst = new ManualResetEventSlim();
        var first = new PendingAction<int>(_ =>
        {
            firstStarted.Set();
            releaseFirst.Wait();
            return 0;
        });
        var applied = new int[2];
        var second = new PendingAction<int>(_ => Interlocked.Increment(ref applied[0]));
        var third = new PendingAction<int>(_ => Interlocked.Increment(ref applied[1]));

        // The second and third queue up while the first is applied, so they share the second commit.
        writer.Enqueue(first);
        Assert.True(firstStarted.Wait(TimeSpan.FromSeconds(30)));
        writer.Enqueue(second);
        writer.Enqueue(third);
        releaseFirst.Set();

        var results = await Task.WhenAll(second.Task, third.Task).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(new[] { 1, 1 }, results);
        Assert.Equal([1, 1], applied);
        Assert.Equal(2, writer.Commits);
    }
}
