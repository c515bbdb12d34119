using System.Net;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Grafana.GrafanaTestKit;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Grafana;

/// <summary><c>/queries?format=rows|csv</c>, what Grafana's Infinity data source reads: flat rows, ISO times, numbers as numbers.</summary>
public sealed class InfinityFormatTests
{
    [Fact]
    public async Task A_time_series_in_rows_format_is_one_row_per_point_with_time_series_and_value()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 60);
        await QueryAsync(api.Client, "from Orders where OrderedAt between '2026-11-01T00:00:00Z' and '2026-11-01T00:29:59Z' group by time(OrderedAt, '10m'), Status select count()");

        var rows = await api.GetJsonAsync("/queries?format=rows&q=" + Uri.EscapeDataString(
            "from Orders where OrderedAt between $from and $to group by time(OrderedAt, '10m'), Status select count()")
            + "&p.from=2026-11-01T00:00:00Z&p.to=2026-11-01T00:29:59Z&waitForNonStale=30s");

        var list = rows.EnumerateArray().ToList();
        Assert.True(list.Count == 9, rows.GetRawText());
        var first = list.Single(r => r.GetProperty("series").GetString() == "shipped" && r.GetProperty("time").GetString() == "2026-11-01T00:10:00Z");
        Assert.Equal(4, first.GetProperty("value").GetDouble()); // orders 10, 13, 16, 19
        Assert.All(list, r => Assert.Equal(System.Text.Json.JsonValueKind.Number, r.GetProperty("value").ValueKind));
    }

    [Fact]
    public async Task A_table_in_rows_format_keeps_numbers_as_numbers_and_documents_flatten_to_their_properties()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 10);

        using var post = await api.Client.PostAsync(ApiTestServer.Relative("/queries?format=rows"), ApiTestServer.Json("""{"query":"from Orders where Total < 2 select Customer, Total, OrderedAt order by Total","waitForNonStale":"30s"}"""));
        var projected = await ApiTestServer.ReadJsonAsync(post, HttpStatusCode.OK);
        var documents = await api.GetJsonAsync("/queries?format=rows&q=" + Uri.EscapeDataString("from Orders limit 2"));

        Assert.Equal("""[{"Customer":"acme-0","Total":0,"OrderedAt":"2026-11-01T00:00:00Z"},{"Customer":"globex-1","Total":1,"OrderedAt":"2026-11-01T00:01:00Z"}]""", projected.GetRawText());
        var doc = documents[0];
        Assert.Equal("orders/0", doc.GetProperty("id").GetString());
        Assert.Equal(0, doc.GetProperty("Total").GetInt32());
        Assert.Equal("new", doc.GetProperty("Status").GetString());
    }

    [Fact]
    public async Task Csv_has_a_header_and_quotes_what_needs_quoting()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 10);
        await QueryAsync(api.Client, "from Orders where Total < 2 select Customer, Notes, Total");

        using var response = await api.Client.GetAsync(ApiTestServer.Relative("/queries?format=csv&q=" + Uri.EscapeDataString("from Orders where Total < 2 select Customer, Notes, Tags, Total order by Total")));
        var text = await response.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/csv", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("Customer,Notes,Tags,Total\r\nacme-0,late delivery again,\"[\"\"urgent\"\",\"\"vip\"\"]\",0\r\nglobex-1,all fine,[],1\r\n", text);
    }

    [Fact]
    public async Task An_unknown_format_or_a_bad_query_is_a_400_problem()
    {
        await using var api = await ApiTestServer.StartAsync();

        using var format = await api.Client.GetAsync(ApiTestServer.Relative("/queries?format=xml&q=from%20Orders"));
        using var query = await api.Client.GetAsync(ApiTestServer.Relative("/queries?format=rows&q=from%20Orders%20where"));

        Assert.Contains("format", await ApiTestServer.ReadProblemAsync(format, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        Assert.Contains("line 1", await ApiTestServer.ReadProblemAsync(query, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }
}
