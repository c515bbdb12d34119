namespace Ingest.Documents.Tests;

public sealed class TombstonePurgeTests
{
    private static void PutAndDelete(DocumentStore store, int from, int count)
    {
        var puts = new WriteBatch();
        var deletes = new WriteBatch();
        for (var i = from; i < from + count; i++)
        {
            puts.Put($"d/{i}", "C", "{}");
            deletes.Delete($"d/{i}");
        }

        store.Write(puts);
        store.Write(deletes);
    }

    private static List<long> TombstoneEtags(DocumentStore store) =>
        store.GetChangesSince(0, int.MaxValue).Where(c => c.IsDeleted).Select(c => c.Etag).ToList();

    [Fact]
    public async Task Tombstones_are_kept_until_every_registered_consumer_has_passed_them()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        await store.RegisterConsumerAsync("index/a");
        await store.RegisterConsumerAsync("etl/b");
        PutAndDelete(store, 0, 10); // puts 1..10, tombstones 11..20

        Assert.Equal(0, await store.ReportProgressAsync("index/a", 15));
        Assert.Equal(10, TombstoneEtags(store).Count);

        Assert.Equal(3, await store.ReportProgressAsync("etl/b", 13)); // min(15, 13) = 13: tombstones 11..13
        Assert.Equal(Enumerable.Range(14, 7).Select(i => (long)i), TombstoneEtags(store));

        Assert.Equal(0, await store.ReportProgressAsync("etl/b", 5)); // never moves back
        Assert.Equal(13, store.GetConsumers().Single(c => c.Name == "etl/b").AcknowledgedEtag);

        Assert.Equal(15, await store.RegisterConsumerAsync("index/a", 0)); // re-registering keeps progress
        Assert.True(await store.UnregisterConsumerAsync("etl/b"));
        Assert.Equal(2, await store.PurgeTombstonesAsync()); // now only index/a at 15 holds
        Assert.Equal(5, store.GetStats().TombstoneCount);

        await Assert.ThrowsAsync<InvalidOperationException>(() => store.ReportProgressAsync("unknown", 1));
    }

    [Fact]
    public async Task Without_consumers_every_tombstone_can_be_purged_and_purging_survives_reopen()
    {
        using var dir = new TestDirectory();
        using (var store = dir.Open())
        {
            PutAndDelete(store, 0, 500);
            Assert.Equal(500, await store.PurgeTombstonesAsync());
            Assert.Equal(0, await store.PurgeTombstonesAsync());
            PutAndDelete(store, 500, 5);
        }

        using (var store = dir.Open())
        {
            Assert.Equal(5, TombstoneEtags(store).Count);
            Assert.Equal(5, store.GetStats().TombstoneCount);
            Assert.Equal(5, await store.PurgeTombstonesAsync());
            Assert.Empty(store.GetChangesSince(0));
        }
    }
}
