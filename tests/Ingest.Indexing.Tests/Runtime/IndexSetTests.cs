using System.Text;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Runtime;

public sealed class IndexSetTests
{
    internal static readonly IndexDefinition ByCustomer = new(
        "Orders/ByCustomer",
        ["Orders"],
        [new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword)]);

    private static readonly IndexDefinition ByTotal = new(
        "Orders/ByTotal",
        ["Orders"],
        [new IndexFieldDefinition("Total", "Total", IndexFieldType.Number)]);

    [Fact]
    public async Task Tombstones_are_purged_only_after_every_index_passed_them()
    {
        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await host.Indexes.PutAsync(ByTotal);
        await IndexBatchTests.WriteBacklogAsync(host.Store, 100);
        await host.CatchUpAsync(ByCustomer.Name);
        await host.CatchUpAsync(ByTotal.Name);

        // With the indexes stopped, deletes leave tombstones the indexes have not passed: nothing may purge them.
        await host.StopAsync();
        using (var store = IndexedStore.OpenStore(host.Root))
        {
            var deletes = new WriteBatch();
            for (var i = 0; i < 10; i++)
            {
                deletes.Delete($"orders/{i}");
            }

            await store.WriteAsync(deletes);
            Assert.Equal(0, await store.PurgeTombstonesAsync());
            Assert.Equal(10, store.GetStats().TombstoneCount);
            Assert.Equal(["index/Orders/ByCustomer", "index/Orders/ByTotal"], store.GetConsumers().Select(c => c.Name).Order(StringComparer.Ordinal));
        }

        await host.StartAsync();
        await host.CatchUpAsync(ByCustomer.Name);
        await host.CatchUpAsync(ByTotal.Name);
        Assert.Equal(90, host.Indexes.GetStatus(ByCustomer.Name)!.EntryCount);
        Assert.Equal(90, host.Indexes.GetStatus(ByTotal.Name)!.EntryCount);

        // Both reported progress past the deletes (the purge runs with each report).
        await host.Store.PurgeTombstonesAsync();
        Assert.Equal(0, host.Store.GetStats().TombstoneCount);
        Assert.All(host.Store.GetConsumers(), c => Assert.Equal(host.Store.LastEtag, c.AcknowledgedEtag));
    }

    [Fact]
    public async Task A_deleted_index_loses_its_directory_and_consumer_and_stops_holding_tombstones()
    {
        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await host.Indexes.PutAsync(ByTotal);
        await IndexBatchTests.WriteBacklogAsync(host.Store, 10);
        await host.CatchUpAsync(ByTotal.Name);

        Assert.True(await host.Indexes.DeleteAsync(ByTotal.Name));
        Assert.False(await host.Indexes.DeleteAsync(ByTotal.Name));

        Assert.Null(host.Indexes.GetStatus(ByTotal.Name));
        Assert.Null(host.Indexes.BeginRead(ByTotal.Name));
        Assert.DoesNotContain(host.Store.GetConsumers(), c => c.Name == "index/Orders/ByTotal");
        Assert.Equal(["Orders~ByCustomer.1"], Directory.GetDirectories(host.IndexesDirectory).Select(Path.GetFileName));
        await host.ReopenAsync();
        Assert.Equal([ByCustomer.Name], host.Indexes.GetStatuses().Select(s => s.Definition.Name));
    }

    [Fact]
    public async Task A_bad_definition_is_refused_with_every_problem_and_nothing_is_stored()
    {
        await using var host = await IndexedStore.OpenAsync();
        var bad = new IndexDefinition("Orders/Bad", [], [new IndexFieldDefinition("x", "a..b", IndexFieldType.Keyword)]);

        var ex = await Assert.ThrowsAsync<IndexDefinitionException>(() => host.Indexes.PutAsync(bad));

        Assert.Contains(ex.Errors, e => e.Field == "collections");
        Assert.Empty(host.Indexes.GetStatuses());
        Assert.Empty(Directory.GetDirectories(host.IndexesDirectory));
    }

    [Fact]
    public async Task Definitions_survive_a_restart_and_the_index_resumes_from_its_last_etag()
    {
        await using var host = await IndexedStore.OpenAsync();
        Assert.Equal(IndexPutOutcome.Created, await host.Indexes.PutAsync(ByCustomer));
        await IndexBatchTests.WriteBacklogAsync(host.Store, 50);
        await host.CatchUpAsync(ByCustomer.Name);
        var before = host.Indexes.GetStatus(ByCustomer.Name)!;

        await host.ReopenAsync();

        var after = host.Indexes.GetStatus(ByCustomer.Name)!;
        Assert.Equal(ByCustomer, after.Definition);
        Assert.Equal(before.LastIndexedEtag, after.LastIndexedEtag);
        Assert.Equal(before.Fields, after.Fields);
        Assert.Equal(IndexPutOutcome.Unchanged, await host.Indexes.PutAsync(ByCustomer));
    }

    [Fact]
    public async Task A_changed_definition_keeps_serving_the_old_build_until_the_new_one_is_swapped_in()
    {
        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await IndexBatchTests.WriteBacklogAsync(host.Store, 200);
        await host.CatchUpAsync(ByCustomer.Name);
        using var old = host.Indexes.BeginRead(ByCustomer.Name)!;
        var exact = ByCustomer with { Fields = [new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword, ExactCase: true)] };

        Assert.Equal(IndexPutOutcome.Rebuilding, await host.Indexes.PutAsync(exact));
        await host.CatchUpAsync(ByCustomer.Name);

        var status = host.Indexes.GetStatus(ByCustomer.Name)!;
        Assert.Equal(exact, status.Definition);
        Assert.Null(status.PendingDefinition);
        Assert.Equal(IndexState.Indexing, status.State);
        Assert.Contains(host.Store.GetConsumers(), c => c.Name == "index/Orders/ByCustomer");
        Assert.DoesNotContain(host.Store.GetConsumers(), c => c.Name.EndsWith("@rebuild", StringComparison.Ordinal));

        // The reader opened before the swap still reads the old build; its directory goes once the reader lets go.
        var ids = new List<long>();
        old.Lookup(0, KeywordOf("C1"), ids);
        Assert.Single(ids); // case-insensitive: "c1" is order 1's customer
        Assert.True(Directory.Exists(Path.Combine(host.IndexesDirectory, "Orders~ByCustomer.1")));
        old.Dispose();
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (Directory.Exists(Path.Combine(host.IndexesDirectory, "Orders~ByCustomer.1")) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(5);
        }

        Assert.Equal(["Orders~ByCustomer.2"], Directory.GetDirectories(host.IndexesDirectory).Select(Path.GetFileName));
        using var current = host.Indexes.BeginRead(ByCustomer.Name)!;
        ids.Clear();
        current.Lookup(0, ExactKeywordOf("C1"), ids);
        Assert.Empty(ids);
    }

    [Fact]
    public async Task An_index_with_a_damaged_page_is_errored_with_file_and_offset_while_another_keeps_indexing()
    {
        // The error counter on the Ingest meter, for this test's damaged index.
        long errorsCounted = 0;
        using var meters = new System.Diagnostics.Metrics.MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == IndexingTelemetry.Name && instrument.Name == IndexingTelemetry.Errors)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        meters.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == IndexingTelemetry.IndexTag && Equals(tag.Value, ByTotal.Name))
                {
                    Interlocked.Add(ref errorsCounted, value);
                }
            }
        });
        meters.Start();

        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await host.Indexes.PutAsync(ByTotal);
        await IndexBatchTests.WriteBacklogAsync(host.Store, 2_000);
        await host.CatchUpAsync(ByCustomer.Name);
        await host.CatchUpAsync(ByTotal.Name);
        await host.StopAsync();

        // Flip a byte in the middle of every page past the file headers and state page: whatever the index reads first is damaged.
        var dataFile = Path.Combine(host.IndexesDirectory, "Orders~ByTotal.1", "data.ingest");
        using (var file = new FileStream(dataFile, FileMode.Open, FileAccess.ReadWrite))
        {
            for (long offset = (3 * 8192) + 4000; offset < file.Length; offset += 8192)
            {
                file.Position = offset;
                var b = file.ReadByte();
                file.Position = offset;
                file.WriteByte((byte)(b ^ 0x5A));
            }
        }

        await host.StartAsync();
        await IndexBatchTests.WriteBacklogAsync(host.Store, 3_000); // 1,000 new documents, 2,000 updated
        await host.CatchUpAsync(ByCustomer.Name);

        var errored = host.Indexes.GetStatus(ByTotal.Name)!;
        Assert.Equal(IndexState.Errored, errored.State);
        Assert.True(Interlocked.Read(ref errorsCounted) >= 1, "ingest.index.errors was not counted for the errored index");
        Assert.Contains(dataFile, errored.Error, StringComparison.Ordinal);
        Assert.Contains("offset", errored.Error, StringComparison.Ordinal);
        Assert.Null(host.Indexes.BeginRead(ByTotal.Name));
        Assert.False(await host.Indexes.WaitForIndexedEtagAsync(ByTotal.Name, host.Store.LastEtag, TimeSpan.FromSeconds(1)));

        var healthy = host.Indexes.GetStatus(ByCustomer.Name)!;
        Assert.Equal(IndexState.Indexing, healthy.State);
        Assert.Null(healthy.Error);
        Assert.Equal(3_000, healthy.EntryCount);
        Assert.Equal(host.Store.LastEtag, healthy.LastIndexedEtag);

        // A reset rebuilds the errored index side by side and swaps it in; the damaged directory goes.
        Assert.True(await host.Indexes.ResetAsync(ByTotal.Name));
        await host.CatchUpAsync(ByTotal.Name);
        var repaired = host.Indexes.GetStatus(ByTotal.Name)!;
        Assert.Equal(IndexState.Indexing, repaired.State);
        Assert.Null(repaired.Error);
        Assert.Equal(3_000, repaired.EntryCount);
        using var reader = host.Indexes.BeginRead(ByTotal.Name);
        Assert.NotNull(reader);
    }

    [Fact]
    public async Task A_document_put_again_with_its_id_in_other_casing_stays_one_entry()
    {
        await using var host = await IndexedStore.OpenAsync();
        await host.Indexes.PutAsync(ByCustomer);
        await host.Store.WriteAsync(new WriteBatch().Put("Orders/1", "Orders", """{"Customer":"before"}"""));
        await host.CatchUpAsync(ByCustomer.Name);
        await host.Store.WriteAsync(new WriteBatch().Put("ORDERS/1", "Orders", """{"Customer":"after"}"""));
        await host.CatchUpAsync(ByCustomer.Name);

        using var reader = host.Indexes.BeginRead(ByCustomer.Name)!;
        Assert.Equal(1, reader.EntryCount);
        var ids = new List<long>();
        reader.Lookup(0, KeywordOf("before"), ids);
        Assert.Empty(ids);
        reader.Lookup(0, KeywordOf("after"), ids);
        Assert.True(reader.TryGetDocumentId(Assert.Single(ids), out var id));
        Assert.Equal("ORDERS/1", id);
        Assert.True(reader.TryGetEntry("orders/1", out _));
    }

    private static byte[] KeywordOf(string value, bool exactCase = false)
    {
        using var terms = new TermBuffer();
        KeywordTerm.Write(Encoding.UTF8.GetBytes(value), exactCase, terms);
        return terms[0].ToArray();
    }

    private static byte[] ExactKeywordOf(string value) => KeywordOf(value, exactCase: true);
}
