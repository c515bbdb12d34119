using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Grafana.GrafanaTestKit;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Grafana;

/// <summary>
/// The calls the plugin's Go backend forwards from the editors (<c>/variable</c>, <c>/tag-keys</c>, <c>/tag-values</c>,
/// <c>/metrics</c>, <c>/metric-payload-options</c>) with the bodies it sends, and the shapes it reads back.
/// </summary>
public sealed class GrafanaEditorContractTests
{
    [Fact]
    public async Task A_variable_query_answers_text_value_pairs_of_a_facet()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);
        await QueryAsync(api.Client, "from Orders where Status = 'new'");

        var range = "{\"from\":\"" + Iso(OrdersStart) + "\",\"to\":\"" + Iso(OrdersStart.AddDays(1)) + "\",\"raw\":{\"from\":\"now-6h\",\"to\":\"now\"}}";
        var answer = await PostOkAsync(api.Client, "variable", "{\"payload\":{\"target\":\"from Orders select facet(Status)\"},\"range\":" + range + "}");

        var pairs = answer.EnumerateArray().Select(v => (v.GetProperty("__text").GetString(), v.GetProperty("__value").GetString())).ToList();
        Assert.Equal(Statuses.Order().Select(s => ((string?)s, (string?)s)), pairs.Order());
    }

    [Fact]
    public async Task A_variable_query_takes_text_and_value_from_columns_so_named()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);

        var answer = await PostOkAsync(api.Client, "variable", """
            {"payload":{"target":"from Orders where Total < 3 select Customer as __text, Id as __value"}}
            """);

        var pairs = answer.EnumerateArray().Select(v => (v.GetProperty("__text").GetString(), v.GetProperty("__value").GetString())).Order().ToList();
        Assert.Equal([("acme-0", "orders/0"), ("acme-2", "orders/2"), ("globex-1", "orders/1")], pairs);
    }

    [Fact]
    public async Task Tag_keys_are_the_indexed_fields_and_tag_values_their_values()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);
        await QueryAsync(api.Client, "from Orders where Status = 'new' and Total > 3");

        var keys = await PostOkAsync(api.Client, "tag-keys", "{}");
        var values = await PostOkAsync(api.Client, "tag-values", """{"key":"Status"}""");
        var unknown = await PostOkAsync(api.Client, "tag-values", """{"key":"Nope"}""");

        var keyList = keys.EnumerateArray().Select(k => (k.GetProperty("text").GetString(), k.GetProperty("type").GetString())).ToList();
        Assert.Contains(("Status", "string"), keyList);
        Assert.Contains(("Total", "number"), keyList);
        Assert.Equal(Statuses.Order(), values.EnumerateArray().Select(v => v.GetProperty("text").GetString()!).Order());
        Assert.Equal(0, unknown.GetArrayLength());
    }

    [Fact]
    public async Task Metrics_list_saved_queries_and_collections_and_payload_options_list_fields_by_kind()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);
        using (var put = await api.PutAsync("/grafana/queries/orders-per-status", """{"query":"from Orders where Status = $Status select count()","parameters":{"Status":"new"},"description":"Orders of a status"}"""))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        await QueryAsync(api.Client, "from Orders where Status = 'new'");

        var metrics = await PostOkAsync(api.Client, "metrics", "{}");
        var times = await PostOkAsync(api.Client, "metric-payload-options", """{"metric":"Orders","payload":{},"name":"time"}""");
        var numbers = await PostOkAsync(api.Client, "metric-payload-options", """{"metric":"Orders","payload":{},"name":"field"}""");
        var statuses = await PostOkAsync(api.Client, "metric-payload-options", """{"metric":"orders-per-status","payload":{},"name":"Status"}""");

        var byValue = metrics.EnumerateArray().ToDictionary(m => m.GetProperty("value").GetString()!);
        Assert.Equal("orders-per-status: Orders of a status", byValue["orders-per-status"].GetProperty("label").GetString());
        Assert.Equal("Status", byValue["orders-per-status"].GetProperty("payloads")[0].GetProperty("name").GetString());
        Assert.Equal(["time", "aggregate", "field", "groupBy", "where"], byValue["Orders"].GetProperty("payloads").EnumerateArray().Select(p => p.GetProperty("name").GetString()));
        Assert.Equal(["OrderedAt"], times.EnumerateArray().Select(o => o.GetProperty("value").GetString()));
        Assert.Equal(["Discount", "Total"], numbers.EnumerateArray().Select(o => o.GetProperty("value").GetString()!).Order());
        Assert.Equal(Statuses.Order(), statuses.EnumerateArray().Select(o => o.GetProperty("value").GetString()!).Order());
    }

    [Fact]
    public async Task A_collection_target_with_builder_payload_runs_as_a_time_series()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 120);

        var answer = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddMinutes(59), 600_000, 100, [
            Target("A", "Orders", new { time = "OrderedAt", aggregate = "sum", field = "Total", groupBy = "Status", where = "Total >= 30" }),
        ]));

        var series = answer.EnumerateArray().ToDictionary(s => s.GetProperty("target").GetString()!, Points);
        Assert.Equal(Statuses.Order(), series.Keys.Order());
        var expected = Enumerable.Range(30, 30).Where(i => i % 3 == 1).GroupBy(i => EpochMs(OrdersStart.AddMinutes(i / 10 * 10))).ToDictionary(g => g.Key, g => (double?)g.Sum());
        Assert.Equal(expected, series["shipped"]);
    }

    [Fact]
    public async Task A_saved_query_target_runs_with_its_parameters_and_the_payload_overrides_them()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);
        using (await api.PutAsync("/grafana/queries/by-status", """{"query":"from Orders where Status = $status select count() as n","parameters":{"status":"new"}}""")) { }

        var defaults = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [Target("A", "by-status")]));
        var overridden = await PostOkAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [Target("A", "by-status", new { status = "shipped" })]));
        using var broken = await api.PutAsync("/grafana/queries/broken", """{"query":"from Orders where Nope = $x select count()"}""");
        using var failing = await PostAsync(api.Client, "query", QueryBody(OrdersStart, OrdersStart.AddHours(1), 60_000, 100, [Target("A", "broken")]));

        Assert.Equal(10, defaults[0].GetProperty("rows")[0][0].GetDouble());
        Assert.Equal(10, overridden[0].GetProperty("rows")[0][0].GetDouble());
        Assert.Equal(HttpStatusCode.Created, broken.StatusCode);
        await ApiTestServer.ReadProblemAsync(failing, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await failing.Content.ReadAsStringAsync());
        Assert.StartsWith("query A (saved query 'broken'): line 1, col ", body.RootElement.GetProperty("message").GetString(), StringComparison.Ordinal);
    }
}
