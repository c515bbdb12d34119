using System.Text.Json;

namespace Ingest.Query.Tests.Execution;

/// <summary>Order by (columns, term order, id, several keys), limit/offset, projections, collection scans and explain.</summary>
public sealed class OrderAndOutputTests : IAsyncLifetime
{
    private QueryHost _host = null!;

    public async Task InitializeAsync() => _host = await OrdersFixture.OpenAsync();

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Theory]
    [InlineData("order by Total desc", "6 3 7 2 1 4 5 8")] // missing (5: wrong type, 8: an array) last
    [InlineData("order by Total", "4 1 2 7 3 6 5 8")]
    [InlineData("order by Total asc limit 3 offset 1", "1 2 7")]
    [InlineData("order by Status", "3 2 7 1 6 8 4 5")] // folded terms; ties by entry
    [InlineData("order by Status desc, Total desc", "6 1 8 7 2 3 4 5")]
    [InlineData("order by Id desc", "8 7 6 5 4 3 2 1")]
    [InlineData("order by OrderedAt", "1 2 3 6 4 5 7 8")]
    [InlineData("order by OrderedAt desc limit 2", "6 2")]
    [InlineData("order by Paid desc", "1 5 2 7 3 4 6 8")]
    [InlineData("order by Tags limit 4", "1 6 2 3")] // smallest tag: urgent < vip; 2 has only vip
    [InlineData("limit 2 offset 3", "4 5")]
    [InlineData("limit 0", "")]
    public async Task Order_limit_and_offset_give_the_documented_order(string tail, string expected)
    {
        var page = await _host.QueryAsync($"from index '{OrdersFixture.Index}' {tail}");

        Assert.Equal(expected, string.Join(' ', QueryHost.Ids(page).Select(id => id["orders/".Length..])));
    }

    [Fact]
    public async Task Projections_read_the_selected_paths_only_with_arrays_for_element_paths_and_null_when_missing()
    {
        var page = await _host.QueryAsync($"from index '{OrdersFixture.Index}' where Total <= 10 select Customer, Tags, Id, Customer.Name as N, Nope, Total order by Total desc");

        Assert.Equal(2, page.Rows.Count);
        Assert.Equal(
            """{"Customer":"Acme","Tags":["urgent","vip"],"Id":"orders/1","N":"Acme","Nope":null,"Total":10}""",
            page.Rows[0].GetRawText());
        Assert.Equal(
            """{"Customer":"Initech","Tags":[],"Id":"orders/4","N":"Initech","Nope":null,"Total":-5}""",
            page.Rows[1].GetRawText());
    }

    [Fact]
    public async Task A_collection_scan_pages_the_collection_in_etag_order_and_counts_it()
    {
        var first = await _host.QueryAsync("from Orders limit 5");
        var second = await _host.QueryAsync("from Orders limit 5", continuation: first.Continuation);
        var count = await _host.QueryAsync("from Orders select count()");

        Assert.Equal(8, first.Total);
        Assert.Equal(["orders/1", "orders/2", "orders/3", "orders/4", "orders/5"], QueryHost.Ids(first));
        Assert.Equal(["orders/6", "orders/7", "orders/8"], QueryHost.Ids(second));
        Assert.Null(second.Continuation);
        Assert.Equal("""{"count()":8}""", Assert.Single(count.Rows).GetRawText());
    }

    [Fact]
    public async Task A_collection_scan_tests_ids_and_refuses_other_conditions()
    {
        var page = await _host.QueryAsync("from Orders where startsWith(id(), 'ORDERS/') and id() != 'orders/2' limit 3");
        var listed = await _host.QueryAsync("from Orders where id() in ('Orders/8', 'nope') or id() = $id", new { id = "orders/5" });
        var error = await Assert.ThrowsAsync<Ingest.Query.Syntax.QueryException>(() => _host.QueryAsync("from Orders where id() = 'x' or Status = 'open'"));

        Assert.Equal(["orders/1", "orders/3", "orders/4"], QueryHost.Ids(page));
        Assert.Equal(7, page.Total);
        Assert.Equal(["orders/5", "orders/8"], QueryHost.Ids(listed));
        Assert.Equal("line 1, col 33: this condition needs an index; a collection scan (collection/Orders) can only test id()", error.Message);
    }

    [Fact]
    public async Task Grouped_queries_run_through_the_aggregation_code_over_the_match_set()
    {
        var page = await _host.QueryAsync($"from index '{OrdersFixture.Index}' where Total > 0 group by Status select Status, count()");

        Assert.Equal(
            ["""{"Status":"cancelled","count()":1}""", """{"Status":"open","count()":2}""", """{"Status":"shipped","count()":2}"""],
            page.Rows.Select(r => r.GetRawText()));
        Assert.Equal(3, page.Total);
    }

    [Fact]
    public async Task Explain_shows_the_filter_steps_with_their_sizes_and_the_order()
    {
        var prepared = _host.Prepare(Ingest.Query.Syntax.QueryParser.Parse($"from index '{OrdersFixture.Index}' where Status = 'shipped' and Total > 5 and not Paid = true order by Total desc limit 2"));
        using var reader = _host.Indexes.BeginRead(OrdersFixture.Index);

        var plan = _host.Executor.Explain(prepared, reader);

        var json = JsonSerializer.Serialize(plan);
        Assert.Equal(OrdersFixture.Index, plan.Source);
        Assert.Equal("difference", plan.Steps[0].Operation);
        Assert.Equal(1, plan.Steps[0].Entries); // shipped {1, 6, 8} and Total > 5 {1, 2, 3, 6, 7}, minus paid {1, 5}
        Assert.Contains("\"intersect\"", json, StringComparison.Ordinal);
        Assert.Equal("top-k", plan.Steps[1].Operation);
        Assert.Equal("documents", plan.Steps[2].Operation);
    }
}
