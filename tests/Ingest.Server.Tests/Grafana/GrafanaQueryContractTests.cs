using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Grafana.GrafanaTestKit;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Grafana;

/// <summary>
/// <c>POST /grafana/query</c> with bodies as the simPod JSON data source sends them, against a live server holding
/// QueryTestKit's orders (order i: OrderedAt = 2026-11-01T00:00Z + i minutes, Status = new/shipped/cancelled by i % 3,
/// Total = i), checked against the same numbers computed here by brute force.
/// </summary>
public sealed class GrafanaQueryContractTests
{
    private const int OrderCount = 300;
    private const string SeriesQuery = "from Orders where OrderedAt between $from and $to group by time(OrderedAt, $interval), Status select count(), sum(Total)";

    [Fact]
    public async Task Save_and_test_gets_200_on_the_url_with_and_without_a_trailing_slash()
    {
        await using var api = await ApiTestServer.StartAsync();

        using var bare = await api.Client.GetAsync(ApiTestServer.Relative("/grafana"));
        using var slash = await api.Client.GetAsync(ApiTestServer.Relative("/grafana/"));

        Assert.Equal(HttpStatusCode.OK, bare.StatusCode);
        Assert.Equal(HttpStatusCode.OK, slash.StatusCode);
    }

    [Fact]
    public async Task A_time_series_has_a_series_per_status_and_aggregate_whose_buckets_equal_a_brute_force_count_and_sum()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, OrderCount);
        var from = OrdersStart;
        var to = OrdersStart.AddMinutes(120);

        // 1m asked for, but 121 one-minute buckets exceed maxDataPoints 30: widened to 5m (25 buckets).
        var answer = await PostOkAsync(api.Client, "query", QueryBody(from, to, 60_000, 30, [Target("A", SeriesQuery)]));

        var series = answer.EnumerateArray().ToDictionary(s => s.GetProperty("target").GetString()!);
        Assert.Equal(6, series.Count);
        foreach (var status in Statuses)
        {
            var orders = Enumerable.Range(0, OrderCount).Where(i => i <= 120 && Statuses[i % 3] == status).ToList();
            var expectedCount = orders.GroupBy(i => EpochMs(OrdersStart.AddMinutes(i / 5 * 5))).ToDictionary(g => g.Key, g => (double?)g.Count());
            var expectedSum = orders.GroupBy(i => EpochMs(OrdersStart.AddMinutes(i / 5 * 5))).ToDictionary(g => g.Key, g => (double?)g.Sum());
            var count = series[$"{status} count()"];
            Assert.Equal("A", count.GetProperty("refId").GetString());
            Assert.Equal(expectedCount, Points(count));
            Assert.Equal(expectedSum, Points(series[$"{status} sum(Total)"]));
            Assert.True(count.GetProperty("datapoints").GetArrayLength() <= 30);
            var times = count.GetProperty("datapoints").EnumerateArray().Select(p => p[1].GetInt64()).ToList();
            Assert.Equal(times.Order().ToList(), times);
        }
    }

    [Fact]
    public async Task One_aggregate_without_other_keys_is_one_series_named_after_it_and_a_literal_interval_is_kept()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, OrderCount);

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddMinutes(59), 1000, 1000, [
            Target("R", "from Orders where OrderedAt between $from and $to group by time(OrderedAt, '15m') select sum(Total) as Revenue"),
        ]));

        var series = Assert.Single(answer.EnumerateArray());
        Assert.Equal("Revenue", series.GetProperty("target").GetString());
        var expected = Enumerable.Range(0, 60).GroupBy(i => EpochMs(OrdersStart.AddMinutes(i / 15 * 15))).ToDictionary(g => g.Key, g => (double?)g.Sum());
        Assert.Equal(expected, Points(series));
    }

    [Fact]
    public async Task A_query_without_time_buckets_answers_a_table_with_typed_columns()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, OrderCount);

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddDays(1), 60_000, 500, [
            Target("T", "from Orders group by Status select count() as Orders, max(OrderedAt) as Last order by count() desc"),
        ]));

        var table = Assert.Single(answer.EnumerateArray());
        Assert.Equal("table", table.GetProperty("type").GetString());
        Assert.Equal("T", table.GetProperty("refId").GetString());
        var columns = table.GetProperty("columns").EnumerateArray().Select(c => (c.GetProperty("text").GetString(), c.GetProperty("type").GetString())).ToList();
        Assert.Equal([("Status", "string"), ("Orders", "number"), ("Last", "time")], columns);
        var rows = table.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(3, rows.Count);
        Assert.Equal(100, rows[0][1].GetDouble());
        var last = rows.Single(r => r[0].GetString() == "new");
        Assert.Equal(EpochMs(OrdersStart.AddMinutes(297)), last[2].GetInt64());
    }

    [Theory]
    [InlineData("filters")]
    [InlineData("adhocFilters")]
    public async Task Ad_hoc_filters_are_added_as_and_conditions_typed_by_the_field(string property)
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, OrderCount);

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddMinutes(299), 60_000, 100, [
            Target("A", "from Orders where OrderedAt between $from and $to group by time(OrderedAt, $interval) select count()"),
        ], [Filter("Status", "=", "shipped"), Filter("Total", ">", "100")], property));

        var series = Assert.Single(answer.EnumerateArray());
        var total = Points(series).Values.Sum();
        Assert.Equal(Enumerable.Range(0, OrderCount).Count(i => i % 3 == 1 && i > 100), total);
    }

    [Fact]
    public async Task A_bad_query_is_a_400_whose_message_names_the_target_and_the_position()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 10);

        using var response = await PostAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [
            Target("B", "from Orders where Total >"),
        ]));

        var detail = await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var message = body.RootElement.GetProperty("message").GetString();
        Assert.Equal(detail, message);
        Assert.StartsWith("query B: line 1, col 26:", message, StringComparison.Ordinal);
        Assert.Equal(1, body.RootElement.GetProperty("line").GetInt32());
        Assert.Equal(26, body.RootElement.GetProperty("column").GetInt32());
    }

    [Fact]
    public async Task An_ad_hoc_filter_on_an_unknown_field_names_the_filter_in_the_message()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 10);
        await QueryAsync(api.Client, "from Orders where Total > 1");

        using var response = await PostAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [
            Target("A", "from index 'Auto/Orders/ByTotal' select count()"),
        ], [Filter("Totl", "=", "5")]));

        await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var message = body.RootElement.GetProperty("message").GetString()!;
        Assert.StartsWith("query A: ad hoc filter Totl = 5: unknown field 'Totl'", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Hidden_targets_and_targets_without_text_are_skipped_and_the_payload_binds_parameters()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, OrderCount);
        var hidden = new Dictionary<string, object?> { ["refId"] = "H", ["target"] = "from Orders where", ["hide"] = true };
        var empty = new Dictionary<string, object?> { ["refId"] = "E", ["payload"] = "" };

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [
            hidden, empty, Target("P", "from Orders where Status = $status select count()", new { status = "cancelled" }),
        ]));

        var table = Assert.Single(answer.EnumerateArray());
        Assert.Equal("P", table.GetProperty("refId").GetString());
        Assert.Equal(100, table.GetProperty("rows")[0][0].GetDouble());
    }

    [Fact]
    public async Task A_request_without_a_range_is_a_400_with_a_message()
    {
        await using var api = await ApiTestServer.StartAsync();

        using var response = await PostAsync(api.Client, "query", """{"targets":[{"refId":"A","target":"from Orders"}]}""");

        await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Contains("range", body.RootElement.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_data_source_endpoints_need_the_api_key_when_one_is_set()
    {
        const string key = "grafana-test-key-0123456789";
        await using var api = await ApiTestServer.StartAsync($"--Ingest:ApiKey={key}");
        var body = QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [Target("A", "from Orders select count()")]);

        using var missing = await PostAsync(api.Client, "query", body);
        using var health = await api.Client.GetAsync(ApiTestServer.Relative("/grafana"));
        using var keyed = await PostAsync(api.Client, "query", body, key);

        await ApiTestServer.ReadProblemAsync(missing, HttpStatusCode.Unauthorized);
        Assert.Equal(HttpStatusCode.Unauthorized, health.StatusCode);
        Assert.Equal(HttpStatusCode.OK, keyed.StatusCode);
    }
}
