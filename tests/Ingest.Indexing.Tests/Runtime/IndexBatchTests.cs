using System.Diagnostics;
using System.Globalization;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary>Batches are unbounded by count: they close when the feed is exhausted, the memory budget is used or time is up.</summary>
public sealed class IndexBatchTests(ITestOutputHelper output)
{
    private static readonly IndexDefinition Orders = new(
        "Orders/ByCustomer",
        ["Orders"],
        [
            new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
        ]);

    [Fact]
    public async Task A_million_document_backlog_is_indexed_in_far_fewer_batches_than_documents_over_4096_within_the_budget()
    {
        const int documents = 1_000_000;
        var options = new IndexingOptions();
        await using var host = await IndexedStore.OpenAsync(options);
        var clock = Stopwatch.StartNew();
        await WriteBacklogAsync(host.Store, documents);
        var written = clock.Elapsed;

        clock.Restart();
        Assert.Equal(IndexPutOutcome.Created, await host.Indexes.PutAsync(Orders));
        await host.CatchUpAsync(Orders.Name);
        var status = host.Indexes.GetStatus(Orders.Name)!;
        output.WriteLine($"written in {written.TotalSeconds:F1} s, indexed in {clock.Elapsed.TotalSeconds:F1} s: {status.BatchesClosed} batches, peak batch memory {status.PeakBatchMemoryBytes / 1024 / 1024} MiB");

        Assert.Equal(documents, status.EntryCount);
        Assert.True(status.BatchesClosed * 10 <= documents / 4096, $"{status.BatchesClosed} batches for {documents} documents");
        Assert.True(status.PeakBatchMemoryBytes <= options.BatchMemoryBudgetBytes, $"peak {status.PeakBatchMemoryBytes} bytes over the budget {options.BatchMemoryBudgetBytes}");
        Assert.Equal((documents + 6) / 7, status.Fields[0].NullCount); // every 7th has no customer
    }

    [Fact]
    public async Task A_small_memory_budget_closes_batches_on_memory_and_the_peak_stays_under_it()
    {
        const int documents = 50_000;
        var options = new IndexingOptions { BatchMemoryBudgetBytes = 1024 * 1024, MaxBatchDuration = TimeSpan.FromHours(1) };
        await using var host = await IndexedStore.OpenAsync(options);
        await WriteBacklogAsync(host.Store, documents);

        await host.Indexes.PutAsync(Orders);
        await host.CatchUpAsync(Orders.Name);
        var status = host.Indexes.GetStatus(Orders.Name)!;
        output.WriteLine($"{status.BatchesClosed} batches, peak batch memory {status.PeakBatchMemoryBytes} bytes");

        Assert.Equal(documents, status.EntryCount);
        Assert.True(status.BatchesClosed >= 10, $"only {status.BatchesClosed} batches: they did not close on memory");
        Assert.True(status.PeakBatchMemoryBytes <= options.BatchMemoryBudgetBytes, $"peak {status.PeakBatchMemoryBytes} bytes over the budget");
        Assert.True(status.PeakBatchMemoryBytes >= options.BatchMemoryBudgetBytes / 8, $"peak {status.PeakBatchMemoryBytes} bytes: the budget was hardly used");
    }

    [Fact]
    public async Task A_document_cap_bounds_batches_for_benchmarks()
    {
        var options = new IndexingOptions { MaxBatchDocuments = 100, MaxBatchDuration = TimeSpan.FromHours(1) };
        await using var host = await IndexedStore.OpenAsync(options);
        await WriteBacklogAsync(host.Store, 1_000);

        await host.Indexes.PutAsync(Orders);
        await host.CatchUpAsync(Orders.Name);

        var status = host.Indexes.GetStatus(Orders.Name)!;
        Assert.Equal(1_000, status.EntryCount);
        Assert.Equal(10, status.BatchesClosed);
        Assert.Equal(100, status.LastBatchDocuments);
    }

    internal static async Task WriteBacklogAsync(DocumentStore store, int documents)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < documents; i++)
        {
            var number = i.ToString(CultureInfo.InvariantCulture);
            var customer = i % 7 == 0 ? "" : "\"Customer\":\"c" + (i % 1000).ToString(CultureInfo.InvariantCulture) + "\",";
            batch.Put("orders/" + number, "Orders", "{" + customer + "\"Total\":" + (i % 500).ToString(CultureInfo.InvariantCulture) + ",\"Tags\":[\"t" + (i % 10).ToString(CultureInfo.InvariantCulture) + "\"]}");
            if (batch.Count == 10_000)
            {
                await store.WriteAsync(batch);
                batch = new WriteBatch();
            }
        }

        if (batch.Count > 0)
        {
            await store.WriteAsync(batch);
        }
    }
}
