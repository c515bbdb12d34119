using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Execution;

/// <summary>
/// Each kind of loop that can run long stops on a cancelled token: the token is cancelled before the loop is reached
/// (after Run returned, for the loops that run while rows are written) and the test names the loop that must notice it.
/// Not isolated here: the combinations of multi-valued group keys (reached only through the per-term checks of their keys).
/// </summary>
public sealed class CancellationTests
{
    private const int Documents = 5_000;

    private static readonly IndexDefinition Orders = new(
        "Orders/All",
        ["Orders"],
        [
            new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
        ]);

    private static CancellationToken Cancelled => new(canceled: true);

    [Fact]
    public async Task A_collection_scan_counting_what_an_id_condition_matches_stops()
    {
        await using var host = await OrdersAsync();
        var prepared = host.Prepare(QueryParser.Parse("from Orders where startsWith(id(), 'nothing/')"));

        Assert.Throws<OperationCanceledException>(() => host.Executor.Run(prepared, null, Cancelled).Dispose());
    }

    [Theory]
    [InlineData("from Orders offset 4900")] // a collection scan skipping to its offset
    [InlineData("from Orders where startsWith(id(), 'nothing/') limit 10")] // ... skipping ids its condition leaves out
    [InlineData("from index 'Orders/All' offset 4900")] // index entries skipped to the offset
    public async Task Rows_skipped_before_the_first_written_stop(string text)
    {
        await using var host = await OrdersAsync();
        var prepared = host.Prepare(QueryParser.Parse(text));
        using var reader = prepared.IsCollectionScan ? null : host.Indexes.BeginRead(prepared.SourceName);
        using var results = RunIgnoringCountLoop(host, prepared, reader);

        // Only the token given to Run is cancelled: the flush between batches (which looks at the other) never comes.
        await Assert.ThrowsAsync<OperationCanceledException>(() => WriteAsync(results));
    }

    [Fact]
    public async Task A_sort_batch_over_every_match_stops()
    {
        await using var host = await OrdersAsync();
        // Two keys: a top-k pass over every match (one key with a limit walks the terms instead, below).
        var prepared = host.Prepare(QueryParser.Parse("from index 'Orders/All' order by Total desc, Customer limit 10"));
        using var reader = host.Indexes.BeginRead(prepared.SourceName);
        using var results = RunIgnoringCountLoop(host, prepared, reader);

        await Assert.ThrowsAsync<OperationCanceledException>(() => WriteAsync(results));
    }

    [Fact]
    public async Task A_term_walk_to_a_deep_offset_stops()
    {
        await using var host = await OrdersAsync();
        var prepared = host.Prepare(QueryParser.Parse("from index 'Orders/All' order by Total desc limit 10 offset 4900"));
        using var reader = host.Indexes.BeginRead(prepared.SourceName);
        using var results = RunIgnoringCountLoop(host, prepared, reader);

        await Assert.ThrowsAsync<OperationCanceledException>(() => WriteAsync(results));
    }

    [Fact]
    public async Task Ranking_the_terms_of_a_keyword_sort_stops()
    {
        await using var host = await OrdersAsync();
        var prepared = host.Prepare(QueryParser.Parse("from index 'Orders/All' order by Customer limit 10"));
        using var reader = host.Indexes.BeginRead(prepared.SourceName)!;

        // Ranks are built on first use (a term walk never needs them).
        using var keys = new SortKeySource(prepared.Order[0], reader, null, Cancelled);
        Assert.Throws<OperationCanceledException>(() => keys.AnchorKey);
    }

    [Fact]
    public async Task Lookups_of_many_terms_and_their_union_stop()
    {
        await using var host = await OrdersAsync();
        var customers = string.Join(", ", Enumerable.Range(0, 50).Select(i => $"'c{i}'"));
        var prepared = host.Prepare(QueryParser.Parse($"from index 'Orders/All' where Customer in ({customers})"));
        using var reader = host.Indexes.BeginRead(prepared.SourceName);

        Assert.Throws<OperationCanceledException>(() => host.Executor.Run(prepared, reader, Cancelled).Dispose());

        List<long>[] inputs = [[.. Enumerable.Range(0, 1000).Select(i => (long)(3 * i))], [.. Enumerable.Range(0, 1000).Select(i => (long)(3 * i) + 1)], [2, 5]];
        Assert.Throws<OperationCanceledException>(() => EntrySets.Union(inputs, [], Cancelled));
    }

    [Fact]
    public async Task Explain_sizing_its_steps_stops()
    {
        await using var host = await OrdersAsync();
        var prepared = host.Prepare(QueryParser.Parse("from index 'Orders/All' where Total >= 0 and not Total < 10"));
        using var reader = host.Indexes.BeginRead(prepared.SourceName);

        Assert.Throws<OperationCanceledException>(() => host.Executor.Explain(prepared, reader, Cancelled));
    }

    [Fact]
    public async Task A_spent_budget_is_a_QueryTimeoutException_and_a_wait_for_the_index_does_not_count()
    {
        await using var host = await OrdersAsync();
        using (var spent = new QueryBudget(TimeSpan.FromMilliseconds(1)))
        {
            // Spent: its timer has fired (on a loaded machine that can take longer than the 1 ms asked).
            Assert.True(SpinWait.SpinUntil(() => spent.Token.IsCancellationRequested, TimeSpan.FromSeconds(30)), "the 1 ms budget's timer fired");
            var error = await Assert.ThrowsAsync<QueryTimeoutException>(async () => (await host.Engine.StartAsync("from index 'Orders/All' where Total > 5", Empty, new QueryOptions { Budget = spent })).Dispose());
            Assert.Equal("The query did not finish within its time budget of 1 ms.", error.Message);
        }

        using var budget = new QueryBudget(TimeSpan.FromMilliseconds(200));
        budget.Pause();
        await Task.Delay(400);
        Assert.False(budget.Token.IsCancellationRequested);
        budget.Resume();
        Assert.False(budget.Token.IsCancellationRequested);
        await Task.Delay(1000);
        Assert.True(budget.IsExpired);
    }

    [Fact]
    public async Task A_client_that_cancels_is_not_a_timeout()
    {
        await using var host = await OrdersAsync();
        using var client = new CancellationTokenSource();
        await client.CancelAsync();
        using var budget = new QueryBudget(TimeSpan.FromMinutes(1), client.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => (await host.Engine.StartAsync("from Orders where startsWith(id(), 'x')", Empty, new QueryOptions { Budget = budget })).Dispose());
        Assert.False(budget.IsExpired);
    }

    [Fact]
    public async Task A_query_that_may_not_make_automatic_indexes_fails_naming_the_one_it_needs_and_none_is_made()
    {
        await using var host = await QueryHost.OpenAsync();
        await host.PutAsync("Orders", [("orders/1", """{"Status":"new","Total":3}""")]);

        var error = await Assert.ThrowsAsync<AutoIndexDeniedException>(async () => (await host.Engine.StartAsync("from Orders where Status = 'new'", Empty, new QueryOptions { MayCreateAutoIndexes = false })).Dispose());

        Assert.Equal(("Orders", "Auto/Orders/ByStatus", null), (error.Collection, error.IndexName, error.Widens));
        Assert.Equal(["Status"], error.Fields);
        Assert.Empty(host.Indexes.GetStatuses());

        using (await host.Engine.StartAsync("from Orders where Status = 'new'", Empty))
        {
        }

        using (await host.Engine.StartAsync("from Orders where Status = 'new'", Empty, new QueryOptions { MayCreateAutoIndexes = false }))
        {
            // The index exists now: a query that may not make one uses it.
        }

        var widen = await Assert.ThrowsAsync<AutoIndexDeniedException>(() => host.Engine.ExplainAsync("from Orders where Total > 1", Empty, new QueryOptions { MayCreateAutoIndexes = false }));
        Assert.Equal(("Auto/Orders/ByStatusAndTotal", "Auto/Orders/ByStatus"), (widen.IndexName, widen.Widens));
        Assert.Single(host.Indexes.GetStatuses());
    }

    private static readonly Dictionary<string, JsonElement> Empty = [];

    private static async Task<QueryHost> OrdersAsync()
    {
        var host = await QueryHost.OpenAsync(Orders);
        await host.PutAsync("Orders", Enumerable.Range(0, Documents).Select(i => (
            $"orders/{i}",
            $$"""{"Customer":"c{{(i % 2000).ToString(CultureInfo.InvariantCulture)}}","Total":{{i.ToString(CultureInfo.InvariantCulture)}}}""")));
        await host.CatchUpAsync(Orders.Name);
        return host;
    }

    /// <summary>Run with a token cancelled only after Run returned, so the count of a scan's id condition is not what stops.</summary>
    private static QueryResults RunIgnoringCountLoop(QueryHost host, PreparedQuery prepared, Indexing.Storage.IndexReader? reader)
    {
        using var cancel = new CancellationTokenSource();
        var results = host.Executor.Run(prepared, reader, cancel.Token);
        cancel.Cancel();
        return results;
    }

    private static async Task WriteAsync(QueryResults results)
    {
        await using var writer = new Utf8JsonWriter(Stream.Null);
        writer.WriteStartArray();
        await results.WriteResultsAsync(writer, static _ => ValueTask.CompletedTask, CancellationToken.None);
    }
}
