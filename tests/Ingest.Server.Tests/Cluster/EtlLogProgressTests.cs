using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Etl;
using Ingest.Server.Hosting;
using Ingest.Server.Tests.Sources;
using Ingest.Testing;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Cluster;

/// <summary>ETL progress per log partition: what a new owner skips, how batches end, what a standby may pass, and the record handler.</summary>
public sealed class EtlLogProgressTests : IDisposable
{
    private readonly TempDocumentStore _store = new();
    private readonly TestDirectory _data = new();

    [Fact]
    public async Task A_new_owner_passes_over_the_versions_the_recorded_progress_covers_and_reads_the_rest()
    {
        // Partition 0 sent up to offset 4, partition 1 up to offset 1; partition 2 never.
        await _store.Store.WriteAsync(Orders(0, 11));
        var sent = new EtlLogProgress([new LogPosition("src", 0, 4), new LogPosition("src", 1, 1)]);

        var batch = Reader(EtlPipelineLimits.Default).Read(0, sent);

        var expected = Enumerable.Range(0, 12).Where(i => !(i % 3 == 0 && i / 3 <= 4) && !(i % 3 == 1 && i / 3 <= 1)).Select(static i => $"orders/{i}");
        Assert.Equal(expected, batch.Changes.Select(static c => c.Id));
        Assert.Equal(_store.Store.LastEtag, batch.LastEtag);
        Assert.Equal([new LogPosition("src", 1, 3), new LogPosition("src", 2, 3)], batch.Highest!.ToList());
        Assert.All(batch.Changes, static c => Assert.NotNull(c.Position));
    }

    [Fact]
    public async Task A_batch_never_ends_between_two_versions_of_one_record()
    {
        // Three documents from one record (a mapping that fans out), then one from the next.
        var batch = new WriteBatch();
        for (var i = 0; i < 3; i++)
        {
            batch.Put($"orders/{i}", "Orders", Encoding.UTF8.GetBytes($$"""{"N":{{i}}}"""), new LogPosition("src", 0, 7));
        }

        batch.Put("orders/next", "Orders", Encoding.UTF8.GetBytes("""{"N":9}"""), new LogPosition("src", 0, 8));
        await _store.Store.WriteAsync(batch);
        var tiny = new EtlPipelineLimits(1, TimeSpan.FromSeconds(5), 8);

        var first = Reader(tiny).Read(0, new EtlLogProgress());
        var single = Reader(tiny).Read(0);

        Assert.Equal(["orders/0", "orders/1", "orders/2"], first.Changes.Select(static c => c.Id));
        Assert.Equal([new LogPosition("src", 0, 7)], first.Highest!.ToList());
        Assert.Equal(["orders/0"], single.Changes.Select(static c => c.Id));
        Assert.Null(single.Highest);
    }

    [Fact]
    public async Task A_standby_passes_only_the_covered_prefix_of_its_feed()
    {
        await _store.Store.WriteAsync(Orders(0, 5));
        await _store.Store.WriteAsync(new WriteBatch().Put("customers/1", "Customers", """{"Name":"other collection"}"""));
        await _store.Store.WriteAsync(Orders(6, 8));
        var filter = new EtlCollectionFilter(new EtlTaskDefinition { Name = "t", Collections = ["orders"] });
        var progress = new EtlLogProgress([new LogPosition("src", 0, 9), new LogPosition("src", 1, 9), new LogPosition("src", 2, 1)]);

        // orders/0..4 covered, orders/5 (partition 2, offset 1) covered, customers/1 is not the task's, orders/8 (partition 2, offset 2) is not covered.
        var covered = EtlCoveredChanges.LastCoveredEtag(_store.Store, filter, 0, progress);

        var etags = _store.Store.GetChangesSince(0, 100);
        Assert.Equal(etags.Single(static c => c.Id == "orders/7").Etag, covered);
        Assert.Equal(0, EtlCoveredChanges.LastCoveredEtag(_store.Store, filter, 0, new EtlLogProgress()));
    }

    [Fact]
    public async Task Progress_records_merge_per_partition_durably_and_never_move_back()
    {
        var data = new DataDirectory(Options.Create(new IngestOptions { DataDirectory = _data.Path }));
        var progress = new EtlClusterProgress(data);
        var advanced = new List<string>();
        progress.Advanced += advanced.Add;

        await progress.ApplyAsync(Record("orders", ("src", 0, 10), ("src", 1, 4)), new ClusterPosition(0, 1), CancellationToken.None);
        await progress.ApplyAsync(Record("orders", ("src", 0, 6), ("src", 2, 3)), new ClusterPosition(0, 2), CancellationToken.None);
        await progress.ApplyAsync(Record("orders", ("src", 0, 6)), new ClusterPosition(0, 3), CancellationToken.None);

        Assert.Equal(["orders", "orders"], advanced);
        var reopened = new EtlClusterProgress(data).Get("ORDERS").ToList();
        Assert.Equal([new LogPosition("src", 0, 10), new LogPosition("src", 1, 4), new LogPosition("src", 2, 3)], reopened);
        await Assert.ThrowsAsync<InvalidDataException>(() =>
            progress.ApplyAsync(new ClusterRecord(EtlProgressRecord.Kind, "etl.x", "{"u8.ToArray(), []), new ClusterPosition(0, 4), CancellationToken.None));
    }

    private static ClusterRecord Record(string task, params (string Topic, int Partition, long Offset)[] positions)
    {
        var body = JsonSerializer.SerializeToUtf8Bytes(
            new EtlProgressRecord(task, [.. positions.Select(static p => new LogPosition(p.Topic, p.Partition, p.Offset))]), EtlJsonContext.Default.EtlProgressRecord);
        return new ClusterRecord(EtlProgressRecord.Kind, EtlProgressRecord.KeyOf(task), body, []);
    }

    private EtlChangeReader Reader(EtlPipelineLimits limits) =>
        new(_store.Store, new EtlCollectionFilter(new EtlTaskDefinition { Name = "t", Collections = ["orders"] }), limits);

    /// <summary>orders/i from the record at partition i % 3, offset i / 3 of topic "src".</summary>
    private static WriteBatch Orders(int from, int to)
    {
        var batch = new WriteBatch();
        for (var i = from; i <= to; i++)
        {
            batch.Put($"orders/{i}", "Orders", Encoding.UTF8.GetBytes($$"""{"N":{{i}}}"""), new LogPosition("src", i % 3, i / 3));
        }

        return batch;
    }

    public void Dispose()
    {
        _store.Dispose();
        _data.Dispose();
    }
}
