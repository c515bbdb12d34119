using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Grafana.GrafanaTestKit;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Grafana;

/// <summary>
/// The Grafana data source over a map-reduce index (QueryTestKit's orders grouped by Status and the hour of OrderedAt,
/// with count and sum(Total)): panels, editors, ad hoc filters, saved queries and Infinity's rows, checked against
/// brute-force sums of the orders (order i: OrderedAt = 2026-11-01T00:00Z + i minutes, Status by i % 3, Total = i).
/// </summary>
public sealed class GrafanaMapReduceTests
{
    private const int OrderCount = 600; // 10 hours
    private const string Index = "Orders/RevenuePerHour";
    private const string Definition = """
        {"collections":["Orders"],
         "fields":[{"name":"Status","path":"Status","type":"keyword"},{"name":"Total","path":"Total","type":"number"},
                   {"name":"OrderedAt","path":"OrderedAt","type":"datetime"}],
         "reduce":{"groupBy":[{"field":"Status"},{"name":"Hour","field":"OrderedAt","interval":"1h"}],
                   "aggregates":[{"name":"Orders","function":"count"},{"name":"Revenue","function":"sum","field":"Total"}]}}
        """;

    [Fact]
    public async Task A_from_index_query_is_a_time_series_over_the_bucket_key_with_a_series_per_status_and_aggregate()
    {
        await using var api = await StartAsync();
        var (from, to) = (OrdersStart.AddHours(2), OrdersStart.AddHours(5).AddMinutes(59));

        var all = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", $"from index '{Index}' where Hour between $from and $to")]));
        var revenue = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("B", $"from index '{Index}' where Hour between $from and $to select Status, Hour, Revenue")]));

        var series = all.EnumerateArray().ToDictionary(s => s.GetProperty("target").GetString()!);
        Assert.Equal(6, series.Count);
        var named = revenue.EnumerateArray().ToDictionary(s => s.GetProperty("target").GetString()!);
        Assert.Equal(["cancelled", "new", "shipped"], named.Keys.Order(StringComparer.Ordinal));
        for (var s = 0; s < Statuses.Length; s++)
        {
            var status = Statuses[s];
            Assert.Equal(Expected(s, 2, 5, static g => g.Count()), Points(series[$"{status} Orders"]));
            Assert.Equal(Expected(s, 2, 5, static g => g.Sum()), Points(series[$"{status} Revenue"]));
            Assert.Equal(Expected(s, 2, 5, static g => g.Sum()), Points(named[status]));
            Assert.Equal("B", named[status].GetProperty("refId").GetString());
        }
    }

    [Fact]
    public async Task The_index_name_is_a_target_whose_payload_picks_the_aggregate_and_a_condition_and_ad_hoc_filters_compare_its_columns()
    {
        await using var api = await StartAsync();
        var (from, to) = (OrdersStart, OrdersStart.AddHours(9).AddMinutes(59));

        var built = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", Index, new { value = "revenue", where = "Status = 'shipped'" })]));
        var filtered = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", Index, new { value = "Orders" })], [Filter("Status", "!=", "cancelled"), Filter("Revenue", ">", "9000")]));
        using var wrong = await PostAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", Index)], [Filter("Total", ">", "10")]));
        using var unknown = await PostAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", Index, new { value = "Total" })]));

        var one = Assert.Single(built.EnumerateArray());
        Assert.Equal("shipped", one.GetProperty("target").GetString());
        Assert.Equal(Expected(1, 0, 9, static g => g.Sum()), Points(one));
        var counts = filtered.EnumerateArray().ToDictionary(s => s.GetProperty("target").GetString()!);
        Assert.Equal(["new", "shipped"], counts.Keys.Order(StringComparer.Ordinal));
        // The filter on an aggregate keeps the groups whose revenue is over 9000: the later hours only.
        Assert.Equal(Expected(1, 0, 9, static g => g.Count(), g => g.Sum() > 9000), Points(counts["shipped"]));
        Assert.Equal(HttpStatusCode.BadRequest, wrong.StatusCode);
        using var problem = JsonDocument.Parse(await wrong.Content.ReadAsStringAsync());
        Assert.StartsWith("query A: ad hoc filter Total > 10: ", problem.RootElement.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Contains("Status, Hour, Orders, Revenue", problem.RootElement.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.BadRequest, unknown.StatusCode);
        using var notAnAggregate = JsonDocument.Parse(await unknown.Content.ReadAsStringAsync());
        Assert.Contains("its aggregates are Orders, Revenue", notAnAggregate.RootElement.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_the_bucket_key_the_groups_are_a_table_in_the_query_order()
    {
        await using var api = await StartAsync();

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(10), 60_000, 100, [Target("A", $"from index '{Index}' where Status = 'new' select Hour as At, Revenue order by Revenue desc limit 3")]));
        var byKeys = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(10), 60_000, 100, [Target("A", $"from index '{Index}' select Status, Orders order by Orders desc limit 2")]));

        var table = Assert.Single(answer.EnumerateArray());
        Assert.Equal("table", table.GetProperty("type").GetString());
        Assert.Equal("""[{"text":"At","type":"time"},{"text":"Revenue","type":"number"}]""", table.GetProperty("columns").GetRawText());
        var rows = table.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal([EpochMs(OrdersStart.AddHours(9)), EpochMs(OrdersStart.AddHours(8)), EpochMs(OrdersStart.AddHours(7))], rows.Select(r => r[0].GetInt64()));
        Assert.Equal(Enumerable.Range(540, 60).Where(i => i % 3 == 0).Sum(), rows[0][1].GetDouble());
        Assert.Equal(2, Assert.Single(byKeys.EnumerateArray()).GetProperty("rows").GetArrayLength());
    }

    [Fact]
    public async Task Editors_list_the_index_as_a_metric_with_its_aggregates_its_keys_as_filter_keys_with_values_and_variables_read_its_groups()
    {
        await using var api = await StartAsync();

        var metrics = await PostOkAsync(api.Client, "metrics", "{}");
        var options = await PostOkAsync(api.Client, "metric-payload-options", $$"""{"metric":"{{Index}}","payload":{},"name":"value"}""");
        var keys = await PostOkAsync(api.Client, "tag-keys", "{}");
        var statuses = await PostOkAsync(api.Client, "tag-values", """{"key":"Status"}""");
        var hours = await PostOkAsync(api.Client, "tag-values", """{"key":"hour"}""");
        var variable = await PostOkAsync(api.Client, "variable", "{\"payload\":{\"target\":\"from index '" + Index + "' where Hour >= '2026-11-01T08:00:00Z' select Status\"}}");

        var metric = metrics.EnumerateArray().Single(m => m.GetProperty("value").GetString() == Index);
        Assert.Equal($"map-reduce index {Index} (by Status, Hour)", metric.GetProperty("label").GetString());
        Assert.Equal(["value", "where"], metric.GetProperty("payloads").EnumerateArray().Select(p => p.GetProperty("name").GetString()));
        Assert.Equal(["Orders", "Revenue"], options.EnumerateArray().Select(o => o.GetProperty("value").GetString()));
        Assert.Contains(keys.EnumerateArray(), k => k.GetProperty("text").GetString() == "Hour" && k.GetProperty("type").GetString() == "time");
        Assert.Equal(["cancelled", "new", "shipped"], statuses.EnumerateArray().Select(v => v.GetProperty("text").GetString()));
        Assert.Equal(10, hours.GetArrayLength());
        Assert.Equal("2026-11-01T00:00:00Z", hours[0].GetProperty("text").GetString());
        Assert.Equal(["cancelled", "new", "shipped"], variable.EnumerateArray().Select(v => v.GetProperty("__value").GetString()).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_saved_query_may_name_the_index_and_infinity_reads_its_series_as_rows()
    {
        await using var api = await StartAsync();
        using var saved = await api.PutAsync("/grafana/queries/revenue-per-hour", $$"""{"query":"from index '{{Index}}' where Status = $status and Hour between $from and $to select Status, Hour, Revenue","parameters":{"status":"shipped"},"description":"Revenue per hour"}""");
        Assert.True(saved.IsSuccessStatusCode, await saved.Content.ReadAsStringAsync());
        var (from, to) = (OrdersStart.AddHours(1), OrdersStart.AddHours(3).AddMinutes(59));

        var answer = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 100, [Target("A", "revenue-per-hour", new { status = "new" })]));
        var metrics = await PostOkAsync(api.Client, "metrics", "{}");
        var rows = await api.GetJsonAsync("/queries?format=rows&q=" + Uri.EscapeDataString($"from index '{Index}' where Hour between $from and $to select Status, Hour, Orders")
            + "&p.from=2026-11-01T01:00:00Z&p.to=2026-11-01T01:59:59Z");

        var series = Assert.Single(answer.EnumerateArray());
        Assert.Equal("new", series.GetProperty("target").GetString());
        Assert.Equal(Expected(0, 1, 3, static g => g.Sum()), Points(series));
        Assert.Contains(metrics.EnumerateArray(), m => m.GetProperty("value").GetString() == "revenue-per-hour");
        Assert.Equal(
            ["""{"time":"2026-11-01T01:00:00Z","series":"cancelled","value":20}""", """{"time":"2026-11-01T01:00:00Z","series":"new","value":20}""", """{"time":"2026-11-01T01:00:00Z","series":"shipped","value":20}"""],
            rows.EnumerateArray().Select(r => r.GetRawText()).Order(StringComparer.Ordinal));
    }

    /// <summary>A server with the orders and the index, built: a <c>/queries</c> call waits until it is not stale.</summary>
    private static async Task<ApiTestServer> StartAsync()
    {
        var api = await ApiTestServer.StartAsync();
        try
        {
            await PutOrdersAsync(api.Store, OrderCount);
            using var created = await api.PutAsync($"/indexes/{Index}", Definition);
            await ApiTestServer.ReadJsonAsync(created, HttpStatusCode.Created);
            await QueryAsync(api.Client, $"from index '{Index}' limit 1");
            return api;
        }
        catch
        {
            await api.DisposeAsync();
            throw;
        }
    }

    /// <summary>Per hour <paramref name="first"/>..<paramref name="last"/>, <paramref name="aggregate"/> of the totals of status <paramref name="status"/>'s orders, by epoch ms.</summary>
    private static Dictionary<long, double?> Expected(int status, int first, int last, Func<IEnumerable<int>, double> aggregate, Func<IEnumerable<int>, bool>? keep = null) =>
        Enumerable.Range(first * 60, (last - first + 1) * 60)
            .Where(i => i % 3 == status)
            .GroupBy(i => EpochMs(OrdersStart.AddHours(i / 60)))
            .Where(g => keep is null || keep(g))
            .ToDictionary(g => g.Key, g => (double?)aggregate(g));
}
