using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Execution;

/// <summary>Continuation tokens across concurrent writes, rebuilds and changed definitions; a page reads only its documents.</summary>
public sealed class PagingTests
{
    private static readonly IndexDefinition ByTotal = new(
        "Orders/ByTotal",
        ["Orders"],
        [new IndexFieldDefinition("Total", "Total", IndexFieldType.Number), new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword)]);

    private static readonly string[] Statuses = ["open", "Shipped", "cancelled", "held", "returned"];

    [Theory]
    [InlineData("")]
    [InlineData("where Total >= 10")]
    [InlineData("order by Total desc")]
    [InlineData("order by Status, Total")]
    [InlineData("where not Status = 'held' order by Status desc, Id")]
    public async Task Pages_across_concurrent_writes_never_repeat_a_document_nor_skip_one_that_stayed_unchanged(string clauses)
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        await using var host = await QueryHost.OpenAsync(ByTotal);
        var next = 0;
        await host.PutAsync("Orders", Enumerable.Range(0, 600).Select(_ => NewOrder(random, next++)));
        await host.CatchUpAsync(ByTotal.Name);
        var before = Matching(host.Store, clauses);
        var changed = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var seen = new List<string>();
        string? token = null;
        var pages = 0;
        do
        {
            var page = await host.QueryAsync($"from index '{ByTotal.Name}' {clauses} limit 37", continuation: token);
            seen.AddRange(QueryHost.Ids(page));
            token = page.Continuation;

            // Writes between pages: updates move documents in the order, deletes and inserts come and go.
            var batch = new WriteBatch();
            for (var i = 0; i < 8; i++)
            {
                var id = $"orders/{random.Next(next)}";
                changed.Add(id);
                if (i % 4 == 0)
                {
                    batch.Delete(id);
                }
                else
                {
                    batch.Put(id, "Orders", QueryHost.Json(new { Total = random.Next(-20, 120), Status = Statuses[random.Next(Statuses.Length)] }));
                }
            }

            var inserted = NewOrder(random, next++);
            batch.Put(inserted.Id, "Orders", inserted.Json);
            await host.Store.WriteAsync(batch);
            await host.CatchUpAsync(ByTotal.Name);
            Assert.True(++pages < 100, $"paging did not end (seed {seed})");
        }
        while (token != null);

        var repeated = seen.GroupBy(id => id, StringComparer.OrdinalIgnoreCase).Where(g => g.Count() > 1).Select(g => g.Key).ToList();
        Assert.True(repeated.Count == 0, $"repeated {string.Join(", ", repeated)} (seed {seed})");
        var skipped = before.Where(id => !changed.Contains(id) && !seen.Contains(id, StringComparer.OrdinalIgnoreCase)).ToList();
        Assert.True(skipped.Count == 0, $"skipped {string.Join(", ", skipped)} (seed {seed})");
    }

    [Fact]
    public async Task A_token_from_before_a_rebuild_is_refused_with_a_clear_error()
    {
        await using var host = await QueryHost.OpenAsync(ByTotal);
        await host.PutAsync("Orders", Enumerable.Range(0, 30).Select(i => ($"orders/{i}", QueryHost.Json(new { Total = i }))));
        // Caught up between the writes so the first build numbers orders/0 first; a rebuild numbers it last. Were both
        // writes indexed in one batch, the first build would number entries as the rebuild does and the token would stay valid.
        await host.CatchUpAsync(ByTotal.Name);
        await host.PutAsync("Orders", [("orders/0", QueryHost.Json(new { Total = 1000 }))]);
        await host.CatchUpAsync(ByTotal.Name);
        var first = await host.QueryAsync($"from index '{ByTotal.Name}' limit 10");

        await host.Indexes.ResetAsync(ByTotal.Name);
        await host.CatchUpAsync(ByTotal.Name);

        // The swap completes shortly after the rebuild caught up; until then the old build still answers the token.
        QueryException? error = null;
        for (var deadline = DateTime.UtcNow.AddSeconds(30); error == null && DateTime.UtcNow < deadline; await Task.Delay(10))
        {
            error = await Record.ExceptionAsync(() => host.QueryAsync($"from index '{ByTotal.Name}' limit 10", continuation: first.Continuation)) as QueryException;
        }

        Assert.NotNull(error);
        Assert.Equal(
            "the continuation token comes from an earlier build of index 'Orders/ByTotal', which has been rebuilt since the first page; run the query again without the token",
            error.Message);
    }

    [Fact]
    public async Task A_token_is_refused_by_a_changed_definition_and_by_another_order()
    {
        await using var host = await QueryHost.OpenAsync(ByTotal);
        await host.PutAsync("Orders", Enumerable.Range(0, 5).Select(i => ($"orders/{i}", QueryHost.Json(new { Total = i }))));
        await host.CatchUpAsync(ByTotal.Name);
        var first = await host.QueryAsync($"from index '{ByTotal.Name}' order by Total limit 2");
        var changed = ByTotal with { Fields = [.. ByTotal.Fields, new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool)] };

        var rebuilt = Assert.Throws<QueryException>(() => host.Executor.Prepare(QueryParser.Parse($"from index '{ByTotal.Name}' order by Total limit 2"), changed, QueryHost.Parameters(null), first.Continuation));
        var reordered = await Assert.ThrowsAsync<QueryException>(() => host.QueryAsync($"from index '{ByTotal.Name}' order by Total desc limit 2", continuation: first.Continuation));

        Assert.Contains("has been rebuilt since the first page", rebuilt.Message, StringComparison.Ordinal);
        Assert.StartsWith("the continuation token belongs to a query with another order by", reordered.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("where Status = 'open' order by Total desc limit 10", 99_999)]
    [InlineData("where Status = 'open' limit 10", 0)]
    [InlineData("order by Status desc, Total limit 10 offset 5", 5)]
    public async Task A_page_of_10_out_of_100000_matches_reads_10_documents(string clauses, int firstTotal)
    {
        await using var host = await QueryHost.OpenAsync(ByTotal);
        for (var start = 0; start < 100_000; start += 20_000)
        {
            await host.PutAsync("Orders", Enumerable.Range(start, 20_000).Select(i => ($"orders/{i}", $$"""{"Total":{{i}},"Status":"open"}""")));
        }

        await host.CatchUpAsync(ByTotal.Name);
        var readsBefore = host.Executor.DocumentReads;

        var page = await host.QueryAsync($"from index '{ByTotal.Name}' {clauses}");

        Assert.Equal(10, page.Rows.Count);
        Assert.Equal(100_000, page.Total);
        Assert.Equal(firstTotal, page.Rows[0].GetProperty("document").GetProperty("Total").GetInt32());
        Assert.Equal(10, host.Executor.DocumentReads - readsBefore);
        Assert.NotNull(page.Continuation);
    }

    [Fact]
    public async Task Rows_stream_out_with_a_flush_every_few_hundred_rows()
    {
        await using var host = await QueryHost.OpenAsync(ByTotal);
        await host.PutAsync("Orders", Enumerable.Range(0, 1000).Select(i => ($"orders/{i}", QueryHost.Json(new { Total = i % 7 }))));
        await host.CatchUpAsync(ByTotal.Name);
        var prepared = host.Prepare(QueryParser.Parse($"from index '{ByTotal.Name}' select Total order by Total"));
        using var reader = host.Indexes.BeginRead(ByTotal.Name);
        using var results = host.Executor.Run(prepared, reader, CancellationToken.None);
        var output = new MemoryStream();
        var flushed = new List<long>();
        await using var writer = new System.Text.Json.Utf8JsonWriter(output);

        writer.WriteStartArray();
        await results.WriteResultsAsync(
            writer,
            async ct =>
            {
                await writer.FlushAsync(ct);
                flushed.Add(output.Length);
            },
            CancellationToken.None);
        writer.WriteEndArray();
        await writer.FlushAsync();

        Assert.True(flushed.Count >= 4, $"{flushed.Count} flushes");
        Assert.True(flushed[0] > 0 && flushed[0] < output.Length / 3, $"first flush at {flushed[0]} of {output.Length} bytes");
        Assert.Null(results.Continuation);
        using var json = System.Text.Json.JsonDocument.Parse(output.ToArray());
        var totals = json.RootElement.EnumerateArray().Select(e => e.GetProperty("Total").GetInt32()).ToList();
        Assert.Equal(1000, totals.Count);
        Assert.Equal(totals.Order(), totals);
    }

    private static (string Id, string Json) NewOrder(Random random, int number) =>
        ($"orders/{number}", random.Next(10) == 0
            ? QueryHost.Json(new { Note = "no total, no status" })
            : QueryHost.Json(new { Total = random.Next(0, 100), Status = Statuses[random.Next(Statuses.Length)] }));

    /// <summary>The ids of the documents that match the clauses now (the filter part evaluated by a full unpaged query's rules).</summary>
    private static List<string> Matching(DocumentStore store, string clauses)
    {
        var result = new List<string>();
        foreach (var document in store.GetCollectionPage("Orders", 0, int.MaxValue))
        {
            using var json = System.Text.Json.JsonDocument.Parse(document.Body);
            var root = json.RootElement;
            var total = root.TryGetProperty("Total", out var t) && t.ValueKind == System.Text.Json.JsonValueKind.Number ? t.GetDouble() : (double?)null;
            var status = root.TryGetProperty("Status", out var s) && s.ValueKind == System.Text.Json.JsonValueKind.String ? s.GetString()!.ToLowerInvariant() : null;
            var matches = clauses switch
            {
                var c when c.StartsWith("where Total >= 10", StringComparison.Ordinal) => total >= 10,
                var c when c.StartsWith("where not Status = 'held'", StringComparison.Ordinal) => status != "held",
                _ => true,
            };

            if (matches)
            {
                result.Add(document.Id);
            }
        }

        return result;
    }
}
