using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Execution;

/// <summary>
/// A range in entry order with a limit keeps only its first page (IndexReader.FirstOfRangeOfSingleValues) and, for
/// <c>select Id</c>, writes ids from the index: the pages, totals and continuations are those of the full match list,
/// from the terms and from the column alike, and a store that moved on since the index snapshot is still checked.
/// </summary>
public sealed class RangeFirstPageTests
{
    private const int Orders = 3_000;

    private static readonly IndexDefinition ByTotal = new(
        "Orders/ByTotal",
        ["Orders"],
        [new IndexFieldDefinition("Total", "Total", IndexFieldType.Number), new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword)]);

    [Theory]
    [InlineData("where Total between 100 and 400", "select Id")] // 301 terms: the terms are read
    [InlineData("where Total between 0 and 2500", "select Id")] // more than a quarter of the column: the column is read
    [InlineData("where Total >= 2000", "select Id as Key, id() as Again")]
    [InlineData("where Total < 250.5", "")]
    [InlineData("where Total > 100 and Total <= 130", "select Id, Status")]
    public async Task Pages_of_a_range_in_entry_order_are_the_full_match_list_cut_into_pages(string where, string select)
    {
        await using var host = await OpenAsync();
        var full = await host.QueryAsync($"from index '{ByTotal.Name}' {where} {select}");
        Assert.InRange(full.Rows.Count, 30, Orders);

        var offset = await host.QueryAsync($"from index '{ByTotal.Name}' {where} {select} limit 7 offset 5");
        Assert.Equal(full.Rows.Skip(5).Take(7).Select(r => r.GetRawText()), offset.Rows.Select(r => r.GetRawText()));
        Assert.Equal(full.Total, offset.Total);

        var pages = new List<string>();
        string? token = null;
        var count = 0;
        do
        {
            var page = await host.QueryAsync($"from index '{ByTotal.Name}' {where} {select} limit 37", continuation: token);
            Assert.Equal(full.Total, page.Total);
            Assert.True(page.Rows.Count == 37 || page.Continuation == null, "a page short of its limit is the last");
            pages.AddRange(page.Rows.Select(r => r.GetRawText()));
            token = page.Continuation;
            Assert.True(++count <= (Orders / 37) + 2, "the pages never end");
        }
        while (token != null);

        Assert.Equal(full.Rows.Select(r => r.GetRawText()), pages);
    }

    [Fact]
    public async Task Select_id_over_an_index_that_agrees_with_the_store_reads_no_document()
    {
        await using var host = await OpenAsync();
        var full = await host.QueryAsync($"from index '{ByTotal.Name}' where Total between 100 and 400");
        var reads = host.Executor.DocumentReads;

        var page = await host.QueryAsync($"from index '{ByTotal.Name}' where Total between 100 and 400 select Id limit 10");

        Assert.Equal(QueryHost.Ids(full).Take(10), page.Rows.Select(r => r.GetProperty("Id").GetString()));
        Assert.Equal(0, host.Executor.DocumentReads - reads);
    }

    [Fact]
    public async Task A_document_deleted_after_the_index_snapshot_is_left_out_and_the_page_still_fills()
    {
        await using var host = await OpenAsync();
        var query = $"from index '{ByTotal.Name}' where Total between 100 and 400 select Id limit 10";
        var before = (await host.QueryAsync(query)).Rows.Select(r => r.GetProperty("Id").GetString()!).ToList();
        var full = QueryHost.Ids(await host.QueryAsync($"from index '{ByTotal.Name}' where Total between 100 and 400"));

        // The index snapshot is taken before the delete: it still holds the deleted document, the store no longer does.
        using var reader = host.Indexes.BeginRead(ByTotal.Name)!;
        var delete = new WriteBatch();
        delete.Delete(before[3]);
        await host.Store.WriteAsync(delete);
        var reads = host.Executor.DocumentReads;

        using var results = host.Executor.Run(host.Prepare(QueryParser.Parse(query)), reader, CancellationToken.None);
        var buffer = new MemoryStream();
        await using (var writer = new System.Text.Json.Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            await results.WriteResultsAsync(writer, async ct => await writer.FlushAsync(ct), CancellationToken.None);
            writer.WriteEndArray();
        }

        using var json = System.Text.Json.JsonDocument.Parse(buffer.ToArray());
        var ids = json.RootElement.EnumerateArray().Select(r => r.GetProperty("Id").GetString()!).ToList();
        Assert.Equal(full.Where(id => id != before[3]).Take(10), ids);
        Assert.Equal(full.Count, results.TotalResults); // the index snapshot's count, as for any query
        Assert.Equal(0, host.Executor.DocumentReads - reads); // the ids were looked up in the store, no document read
        Assert.NotNull(results.Continuation);
    }

    /// <summary>
    /// A live service's index is a little behind its store: documents were deleted and written after the index snapshot.
    /// Every page still equals the full match list without the deleted documents, cut into full pages, whether a page's
    /// first entries and their slack hold enough live ones ("few") or the full list must page it ("many", 60 deleted at
    /// the front and 81 further on, on a continued page). Fails if the store check of the kept entries or of the ids is left out.
    /// </summary>
    [Theory]
    [InlineData("few", "select Id")]
    [InlineData("few", "")]
    [InlineData("many", "select Id")]
    [InlineData("many", "")]
    public async Task Pages_over_an_index_behind_the_store_leave_out_what_was_deleted_and_still_fill(string deletes, string select)
    {
        await using var host = await OpenAsync();
        var where = "where Total between 100 and 800";
        var full = QueryHost.Ids(await host.QueryAsync($"from index '{ByTotal.Name}' {where}"));
        int[] positions = deletes == "few" ? [2, 10, 40, 75, 76] : [.. Enumerable.Range(0, 60), .. Enumerable.Range(100, 81)];
        var deleted = positions.Select(p => full[p]).ToHashSet();

        using var reader = host.Indexes.BeginRead(ByTotal.Name)!;
        var batch = new WriteBatch();
        foreach (var id in deleted)
        {
            batch.Delete(id);
        }

        await host.Store.WriteAsync(batch);

        // New matches the index snapshot does not hold: the store's last change is not indexed, so it does not agree.
        await host.PutAsync("Orders", Enumerable.Range(0, 50).Select(i => ($"orders/new-{i}", QueryHost.Json(new { Total = 150 + i, Status = "open" }))));
        var live = full.Where(id => !deleted.Contains(id)).ToList();

        var offset = await RunAsync(host, reader, $"from index '{ByTotal.Name}' {where} {select} limit 7 offset 5", null);
        Assert.Equal(full.Skip(5).Where(id => !deleted.Contains(id)).Take(7), offset.Ids); // an offset counts entries, as it always has
        Assert.Equal(full.Count, offset.Total);
        var past = await RunAsync(host, reader, $"from index '{ByTotal.Name}' {where} {select} limit 5 offset 1000", null);
        Assert.Empty(past.Ids);
        Assert.Null(past.Continuation);

        var pages = new List<string>();
        string? token = null;
        var count = 0;
        do
        {
            var page = await RunAsync(host, reader, $"from index '{ByTotal.Name}' {where} {select} limit 37", token);
            Assert.Equal(full.Count, page.Total);
            Assert.True(page.Ids.Count == 37 || page.Continuation == null, "a page short of its limit is the last");
            pages.AddRange(page.Ids);
            token = page.Continuation;
            Assert.True(++count <= (full.Count / 37) + 2, "the pages never end");
        }
        while (token != null);

        Assert.Equal(live, pages);
    }

    /// <summary>Runs a query over a given index snapshot (the store's is the current one): its ids, total and continuation.</summary>
    private static async Task<(List<string> Ids, long Total, string? Continuation)> RunAsync(QueryHost host, Ingest.Indexing.Storage.IndexReader reader, string query, string? continuation)
    {
        using var results = host.Executor.Run(host.Prepare(QueryParser.Parse(query), continuation: continuation), reader, CancellationToken.None);
        var buffer = new MemoryStream();
        await using (var writer = new System.Text.Json.Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            await results.WriteResultsAsync(writer, async ct => await writer.FlushAsync(ct), CancellationToken.None);
            writer.WriteEndArray();
        }

        using var json = System.Text.Json.JsonDocument.Parse(buffer.ToArray());
        var ids = json.RootElement.EnumerateArray()
            .Select(r => (r.TryGetProperty("Id", out var id) ? id : r.GetProperty("id")).GetString()!)
            .ToList();
        return (ids, results.TotalResults, results.Continuation);
    }

    private static async Task<QueryHost> OpenAsync()
    {
        var host = await QueryHost.OpenAsync(ByTotal);
        string[] statuses = ["open", "shipped", "held"];

        // Totals are a permutation of the entries: the terms' order is not the entries' order.
        await host.PutAsync("Orders", Enumerable.Range(0, Orders).Select(i =>
            ($"orders/{i}", QueryHost.Json(new { Total = (i * 1_117) % Orders, Status = statuses[i % 3] }))));
        await host.CatchUpAsync(ByTotal.Name);
        return host;
    }
}
