using System.Text;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Storage.Backup;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary><see cref="IndexSet.BeginBackupAsync"/>: the store and its index builds snapshotted together while documents keep arriving.</summary>
public sealed class IndexBackupTests
{
    private const int Customers = 5;

    private static readonly IndexDefinition ByCustomer = IndexSetTests.ByCustomer;

    [Fact]
    public async Task No_snapshot_shows_an_index_ahead_of_the_store_or_behind_the_progress_the_store_records_for_it()
    {
        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await using var writes = new Writer(host.Store);

        var checkedWithProgress = 0;
        var sawRebuild = false;
        for (var i = 0; i < 200 || checkedWithProgress < 20 || !sawRebuild; i++)
        {
            Assert.True(i < 5000, $"after {i} snapshots: {checkedWithProgress} with progress, rebuild seen: {sawRebuild}");
            if (i == 100)
            {
                await host.Indexes.ResetAsync(ByCustomer.Name); // a side-by-side build joins the snapshots until it swaps in
            }

            using var snapshot = await host.Indexes.BeginBackupAsync();
            Assert.InRange(snapshot.Indexes.Count, 1, 2);
            sawRebuild |= snapshot.Indexes.Count == 2;
            var storeEtag = snapshot.Store.LastEtag;
            var consumers = snapshot.Store.GetConsumers();
            for (var b = 0; b < snapshot.Indexes.Count; b++)
            {
                // Builds come current first; a second one is the pending rebuild, with its own consumer.
                var (directory, index) = snapshot.Indexes[b];
                Assert.StartsWith("Orders~ByCustomer.", directory, StringComparison.Ordinal);
                var consumer = "index/" + ByCustomer.Name + (b == 1 ? "@rebuild" : string.Empty);
                var progress = consumers.SingleOrDefault(c => c.Name == consumer)?.AcknowledgedEtag ?? 0; // registered once its loop starts

                Assert.True(index.LastIndexedEtag <= storeEtag, $"{directory} is at etag {index.LastIndexedEtag}, ahead of the store snapshot at {storeEtag}");
                Assert.True(progress <= index.LastIndexedEtag, $"the store snapshot records {consumer} at etag {progress}, past {directory} at {index.LastIndexedEtag}");
                checkedWithProgress += progress > 0 ? 1 : 0;
            }

            await Task.Yield();
        }

        Assert.True(writes.Operations > 0);
    }

    [Fact]
    public async Task A_backup_taken_under_writes_restores_to_a_store_whose_index_catches_up_to_agree_with_it()
    {
        using var restoredDirectory = new TestDirectory();
        var restoredRoot = restoredDirectory.Path;
        using var backup = new MemoryStream();
        await using (var host = await IndexedStore.OpenAsync())
        {
            await host.Indexes.PutAsync(ByCustomer);
            await using var writes = new Writer(host.Store);
            while (writes.Operations < 2000)
            {
                await Task.Delay(5);
            }

            using var snapshot = await host.Indexes.BeginBackupAsync();
            var writer = new BackupWriter(backup);
            await snapshot.WriteToAsync(writer, "docs", "indexes");
            await writer.CompleteAsync();
        }

        backup.Position = 0;
        var entries = BackupRestorer.Restore(backup, "memory", restoredRoot);
        Assert.Equal(["docs", "indexes/Orders~ByCustomer.1", "indexes/catalog.json"], entries.Select(e => e.Path));

        await using var restored = await IndexedStore.OpenAsync(root: restoredRoot);
        await restored.CatchUpAsync(ByCustomer.Name);
        var expected = new int[Customers];
        using (var reader = restored.Store.BeginRead())
        {
            foreach (var document in reader.GetCollection("Orders"))
            {
                var body = Encoding.UTF8.GetString(document.Body);
                expected[body[^3] - '0']++;
            }
        }

        Assert.True(expected.Sum() > 0);
        for (var c = 0; c < Customers; c++)
        {
            using var index = restored.Indexes.BeginRead(ByCustomer.Name)!;
            var entriesOf = new List<long>();
            index.Lookup(0, Encoding.UTF8.GetBytes($"c{c}"), entriesOf);
            Assert.Equal(expected[c], entriesOf.Count);
        }
    }

    /// <summary>Puts orders and deletes some (tombstones the index must see) in small batches until disposed.</summary>
    private sealed class Writer : IAsyncDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly Task _loop;
        private long _operations;

        public Writer(DocumentStore store) => _loop = Task.Run(async () =>
        {
            for (var n = 0; !_stop.IsCancellationRequested; n++)
            {
                var batch = new WriteBatch();
                for (var i = 0; i < 10; i++)
                {
                    var id = (n * 10) + i;
                    batch.Put($"orders/{id % 3000}", "Orders", $$"""{"Customer":"c{{(id * 7) % Customers}}"}""");
                    if (id % 4 == 0)
                    {
                        batch.Delete($"orders/{(id + 1500) % 3000}");
                    }
                }

                await store.WriteAsync(batch);
                Interlocked.Add(ref _operations, 10);
            }
        });

        public long Operations => Interlocked.Read(ref _operations);

        public async ValueTask DisposeAsync()
        {
            await _stop.CancelAsync();
            await _loop;
            _stop.Dispose();
        }
    }
}
