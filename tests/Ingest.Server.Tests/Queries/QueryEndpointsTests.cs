using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>Every construct of the query language over <c>POST /queries</c> and <c>GET /queries</c>, against a running server.</summary>
public sealed class QueryEndpointsTests
{
    private const int Orders = 300;

    [Fact]
    public async Task Filters_order_limit_offset_and_projections_answer_over_http()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);
        using (var put = await api.PutAsync("/indexes/Orders/ByCustomer", """{"collections":["Orders"],"fields":[{"name":"Customer","path":"Customer","type":"keyword"},{"name":"OrderedAt","path":"OrderedAt","type":"datetime"},{"name":"Total","path":"Total","type":"number"}]}"""))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        var shipped = await QueryAsync(api.Client, "from Orders where Status = 'shipped' and Total between 10 and 100 order by OrderedAt desc limit 50");
        var expectedShipped = Enumerable.Range(10, 91).Where(i => i % 3 == 1).OrderByDescending(i => i).Take(50).ToList();
        Assert.Equal(expectedShipped, Ids(shipped).Select(Number));
        Assert.Equal(expectedShipped.Count, shipped.GetProperty("totalResults").GetInt64());
        Assert.Equal("shipped", Results(shipped)[0].GetProperty("document").GetProperty("Status").GetString());

        var byCustomer = await QueryAsync(api.Client, "from index 'Orders/ByCustomer' where startsWith(Customer, 'acme') and OrderedAt >= $from select Id, Customer, Total", new { from = "2026-11-01T04:00:00Z" });
        var expectedCustomer = Enumerable.Range(240, Orders - 240).Where(i => i % 2 == 0).ToList();
        Assert.Equal("Orders/ByCustomer", byCustomer.GetProperty("indexName").GetString());
        Assert.False(byCustomer.GetProperty("automaticIndex").GetBoolean());
        Assert.Equal(expectedCustomer, Results(byCustomer).Select(r => Number(r.GetProperty("Id").GetString()!)).Order());
        Assert.All(Results(byCustomer), r => Assert.Equal(["Id", "Customer", "Total"], r.EnumerateObject().Select(p => p.Name)));

        var searched = await QueryAsync(api.Client, "from Orders where search(Notes, 'late delivery') or Tags[] in ('urgent', 'vip') order by Total desc, Id limit 20 offset 40");
        var expectedSearched = Enumerable.Range(0, Orders).Where(i => i % 7 == 0 || i % 10 == 0 || i % 3 == 0).OrderByDescending(i => i).Skip(40).Take(20).ToList();
        Assert.Equal(expectedSearched, Ids(searched).Select(Number));

        var discounted = await QueryAsync(api.Client, "from Orders where exists(Discount) and not Status = 'cancelled'");
        var expectedDiscounted = Enumerable.Range(0, Orders).Where(i => i % 4 == 0 && i % 3 != 2).ToList();
        Assert.Equal(expectedDiscounted, Ids(discounted).Select(Number).Order());
        Assert.Equal(expectedDiscounted.Count, discounted.GetProperty("totalResults").GetInt64());
    }

    [Fact]
    public async Task Aggregations_time_buckets_and_facets_answer_over_http()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);

        var grouped = await QueryAsync(api.Client, "from Orders group by Status select Status, count(), sum(Total), avg(Total)");
        var rows = Results(grouped).ToDictionary(r => r.GetProperty("Status").GetString()!);
        foreach (var (status, k) in Statuses.Select((s, k) => (s, k)))
        {
            var totals = Enumerable.Range(0, Orders).Where(i => i % 3 == k).ToList();
            Assert.Equal(totals.Count, rows[status].GetProperty("count()").GetInt64());
            Assert.Equal(totals.Sum(), rows[status].GetProperty("sum(Total)").GetDouble());
            Assert.Equal(totals.Average(), rows[status].GetProperty("avg(Total)").GetDouble(), 6);
        }

        var histogram = await QueryAsync(
            api.Client,
            "from Orders where OrderedAt between $from and $to group by time(OrderedAt, '5m') select count(), sum(Total)",
            new { from = "2026-11-01T00:00:00Z", to = "2026-11-01T00:59:59Z" });
        var buckets = Results(histogram);
        Assert.Equal(12, buckets.Count);
        Assert.Equal("2026-11-01T00:05:00Z", buckets[1].GetProperty("time").GetString());
        Assert.All(buckets, b => Assert.Equal(5, b.GetProperty("count()").GetInt64()));
        Assert.Equal(5 + 6 + 7 + 8 + 9, buckets[1].GetProperty("sum(Total)").GetDouble());

        var facets = await QueryAsync(api.Client, "from Orders select facet(Status), facet(Total, ranges(0, 10, 100, 1000))");
        var facetRows = Results(facets);
        Assert.Equal(Orders / 3, facetRows.Single(r => r.GetProperty("facet").GetString() == "facet(Status)" && r.GetProperty("value").GetString() == "shipped").GetProperty("count").GetInt64());
        Assert.Equal(
            [0, 10, 90, 200, 0],
            facetRows.Where(r => r.TryGetProperty("range", out _)).Select(r => r.GetProperty("count").GetInt64()));
    }

    [Fact]
    public async Task Get_takes_the_query_and_p_parameters_in_the_address()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);
        await QueryAsync(api.Client, "from Orders where Total >= 0 and Status = 'new'");

        var answer = await api.GetJsonAsync("/queries?q=" + Uri.EscapeDataString("from Orders where Total >= $min and Status = $status select Total") + "&p.min=290&p.status=new&waitForNonStale=30s");

        Assert.Equal([291, 294, 297], Results(answer).Select(r => r.GetProperty("Total").GetInt32()).Order());
        var quoted = await api.GetJsonAsync("/queries?q=" + Uri.EscapeDataString("from Orders where Status = $status select Total") + "&p.status=%2210%22&waitForNonStale=30s");
        Assert.Empty(Results(quoted));
    }

    [Fact]
    public async Task A_collection_query_without_fields_reads_the_collection_and_needs_no_index()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 5);

        var answer = await QueryAsync(api.Client, "from Orders limit 3", wait: null);

        Assert.Equal(3, Results(answer).Count);
        Assert.Equal("collection/Orders", answer.GetProperty("indexName").GetString());
        Assert.False(answer.GetProperty("isStale").GetBoolean());
        Assert.Empty((await api.GetJsonAsync("/indexes")).GetProperty("items").EnumerateArray());
    }

    [Fact]
    public async Task A_query_on_a_collection_makes_an_automatic_index_shown_in_the_answer_and_in_GET_indexes()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);

        var first = await QueryAsync(api.Client, "from Orders where Total > 295");
        var second = await QueryAsync(api.Client, "from Orders where Total < 2");

        Assert.Equal("Auto/Orders/ByTotal", first.GetProperty("indexName").GetString());
        Assert.True(first.GetProperty("automaticIndex").GetBoolean());
        Assert.True(first.GetProperty("indexCreated").GetBoolean());
        Assert.False(first.GetProperty("isStale").GetBoolean());
        Assert.Equal(api.Store.LastEtag, first.GetProperty("lastIndexedEtag").GetInt64());
        Assert.Equal([296, 297, 298, 299], Ids(first).Select(Number).Order());
        Assert.False(second.GetProperty("indexCreated").GetBoolean());
        Assert.Equal([0, 1], Ids(second).Select(Number).Order());
        var index = Assert.Single((await api.GetJsonAsync("/indexes")).GetProperty("items").EnumerateArray());
        Assert.Equal("Auto/Orders/ByTotal", index.GetProperty("name").GetString());
        Assert.True(index.GetProperty("automatic").GetBoolean());

        var extended = await QueryAsync(api.Client, "from Orders where Customer = 'acme-0' and Total < 20");
        Assert.Equal("Auto/Orders/ByCustomerAndTotal", extended.GetProperty("indexName").GetString());
        Assert.Equal([0, 10], Ids(extended).Select(Number).Order());
    }

    [Theory]
    [InlineData("from Orders where Total = order by Total", 1, 27)]
    [InlineData("from Orders\nwhere Totl > 10 and\n  Status = ", 3, 12)]
    [InlineData("from Orders where frob(Total)", 1, 19)]
    [InlineData("from index 'Nope' where Total > 1", 1, 6)]
    [InlineData("from Orders where Total > $missing", 1, 27)]
    public async Task A_bad_query_is_a_400_problem_with_its_line_and_column(string query, int line, int column)
    {
        await using var api = await ApiTestServer.StartAsync();

        using var posted = await PostAsync(api.Client, query, wait: null);
        using var got = await api.Client.GetAsync(ApiTestServer.Relative("/queries?q=" + Uri.EscapeDataString(query)));
        using var explained = await api.Client.GetAsync(ApiTestServer.Relative("/queries/explain?q=" + Uri.EscapeDataString(query)));

        foreach (var response in new[] { posted, got, explained })
        {
            var detail = await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
            Assert.StartsWith($"line {line}, col {column}: ", detail, StringComparison.Ordinal);
            using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
            Assert.Equal(line, problem.RootElement.GetProperty("line").GetInt32());
            Assert.Equal(column, problem.RootElement.GetProperty("column").GetInt32());
            Assert.Equal("urn:ingest:problem:invalid-query", problem.RootElement.GetProperty("type").GetString());
        }
    }

    [Theory]
    [InlineData("""{"query":"from Orders","waitForNonStale":"soon"}""", "'waitForNonStale' is 'soon'")]
    [InlineData("""{"query":"from Orders","paramters":{}}""", "Unknown property 'paramters'")]
    [InlineData("""{"parameters":{}}""", "The body has no 'query'")]
    [InlineData("""{"query":"from Orders","parameters":[1]}""", "'parameters' is an array")]
    [InlineData("""[1]""", "must be a JSON object")]
    public async Task A_bad_request_body_is_a_400_problem_naming_what_is_wrong(string body, string expected)
    {
        await using var api = await ApiTestServer.StartAsync();

        using var response = await api.Client.PostAsync(ApiTestServer.Relative("/queries"), ApiTestServer.Json(body));

        Assert.Contains(expected, await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Explain_shows_the_plan_and_the_index()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);

        var explained = await api.GetJsonAsync("/queries/explain?q=" + Uri.EscapeDataString("from Orders where Total > 10 and Status = 'new' order by Total desc limit 5"));

        Assert.Equal("Auto/Orders/ByStatusAndTotal", explained.GetProperty("indexName").GetString());
        Assert.NotEmpty(explained.GetProperty("plan").GetProperty("steps").EnumerateArray());
        Assert.Contains("Auto/Orders/ByStatusAndTotal", explained.GetProperty("plan").GetProperty("source").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Queries_need_the_api_key_like_everything_else()
    {
        await using var api = await ApiTestServer.StartAsync("--Ingest:ApiKey=0123456789abcdef0123");

        using var response = await PostAsync(api.Client, "from Orders", wait: null);

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
    }
}
