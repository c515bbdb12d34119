namespace Ingest.Query.Tests.Execution;

/// <summary>Each filter operator against a real document store and index (QUERY_API.md "Binding and semantics").</summary>
public sealed class FilterTests : IAsyncLifetime
{
    private QueryHost _host = null!;

    public async Task InitializeAsync() => _host = await OrdersFixture.OpenAsync();

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Theory]
    [InlineData("Status = 'shipped'", "1 6 8")]
    [InlineData("Status != 'shipped'", "2 3 4 5 7")]
    [InlineData("Status = null", "4 5")]
    [InlineData("Status != null", "1 2 3 6 7 8")]
    [InlineData("Total > 55.5", "3 6 7")]
    [InlineData("Total >= 55.5", "2 3 6 7")]
    [InlineData("Total < 10", "4")]
    [InlineData("Total <= 10", "1 4")]
    [InlineData("Total between 10 and 100", "1 2 3 7")]
    [InlineData("Total between 100 and 10", "")]
    [InlineData("OrderedAt >= '2026-01-02'", "2 3 6")]
    [InlineData("OrderedAt = 1767312000000", "2 3")]
    [InlineData("OrderedAt < '2026-02-01T10:00:00Z'", "1 2 3")]
    [InlineData("OrderedAt <= '2026-02-01T10:00:00Z'", "1 2 3 6")]
    [InlineData("Tags = 'vip'", "1 2")]
    [InlineData("Tags in ('URGENT')", "1 6")]
    [InlineData("Status in ('open', null)", "2 4 5 7")]
    [InlineData("Status > 'open'", "1 6 8")]
    [InlineData("startsWith(Customer, 'acme')", "1 2")]
    [InlineData("exists(Tags)", "1 2 6")]
    [InlineData("exists(Total)", "1 2 3 4 6 7")]
    [InlineData("search(Notes, 'LATE arrival')", "1 4")]
    [InlineData("search(Notes, '...')", "")]
    [InlineData("Paid = true and not Status = 'shipped'", "5")]
    [InlineData("Paid != true", "2 3 4 6 7 8")]
    [InlineData("Status = 'open' or Total < 0", "2 4 7")]
    [InlineData("not (Status = 'open' or Status = 'shipped')", "3 4 5")]
    [InlineData("Status = 'shipped' and Tags = 'urgent' and Total > 100", "6")]
    [InlineData("(Status = 'open' or Status = 'shipped') and Total != 10 and not exists(Tags)", "7 8")]
    [InlineData("id() = 'ORDERS/3'", "3")]
    [InlineData("Id in ('orders/1', 'orders/9')", "1")]
    [InlineData("id() != 'orders/1'", "2 3 4 5 6 7 8")]
    [InlineData("startsWith(id(), 'Orders/')", "1 2 3 4 5 6 7 8")]
    public async Task Each_operator_matches_what_the_semantics_say(string where, string expected)
    {
        var page = await _host.QueryAsync($"from index '{OrdersFixture.Index}' where {where}");

        Assert.Equal(Numbers(expected), QueryHost.Ids(page).Select(Number).Order().ToList());
        Assert.Equal(page.Rows.Count, page.Total);
    }

    [Fact]
    public async Task Parameters_stand_for_values_and_arrays_expand_in_in()
    {
        var page = await _host.QueryAsync(
            $"from index '{OrdersFixture.Index}' where Total > $min and Tags in ($tags) or id() = $id",
            new { min = 99, tags = new[] { "vip", "urgent" }, id = "orders/4" });

        Assert.Equal([4, 6], QueryHost.Ids(page).Select(Number).Order().ToList());
    }

    [Fact]
    public async Task Without_a_where_every_entry_matches_in_entry_order()
    {
        var page = await _host.QueryAsync($"from index '{OrdersFixture.Index}'");

        Assert.Equal([1, 2, 3, 4, 5, 6, 7, 8], QueryHost.Ids(page).Select(Number).ToList());
        var first = page.Rows[0];
        Assert.Equal("Orders", first.GetProperty("collection").GetString());
        Assert.True(first.GetProperty("etag").GetInt64() > 0);
        Assert.Equal("Acme", first.GetProperty("document").GetProperty("Customer").GetProperty("Name").GetString());
        Assert.EndsWith("Z", first.GetProperty("lastModified").GetString(), StringComparison.Ordinal);
    }

    private static List<int> Numbers(string text) =>
        text.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(int.Parse).ToList();

    private static int Number(string id) => int.Parse(id["orders/".Length..], System.Globalization.CultureInfo.InvariantCulture);
}
