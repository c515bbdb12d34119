using System.Globalization;
using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Server.Indexes;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Indexes;

/// <summary>Map-reduce indexes end to end through the real server: defined over HTTP and in configuration, queried with <c>from index</c>.</summary>
public sealed class MapReduceIndexTests
{
    /// <summary>Revenue per status per hour of QueryTestKit's orders (Status by i % 3, Total = i, one a minute from 2026-11-01).</summary>
    private const string RevenuePerHour = """
        {"collections":["Orders"],
         "fields":[{"name":"Status","path":"Status","type":"keyword"},{"name":"Total","path":"Total","type":"number"},
                   {"name":"OrderedAt","path":"OrderedAt","type":"datetime"},{"name":"Customer","path":"Customer","type":"keyword"}],
         "reduce":{"groupBy":[{"field":"Status"},{"name":"Hour","field":"OrderedAt","interval":"1h"}],
                   "aggregates":[{"name":"Orders","function":"count"},{"name":"Revenue","function":"sum","field":"Total"},
                                 {"name":"Average","function":"avg","field":"Total"},{"name":"Smallest","function":"min","field":"Total"},
                                 {"name":"Largest","function":"max","field":"Total"},{"name":"Customers","function":"countDistinct","field":"Customer"}]}}
        """;

    [Fact]
    public async Task A_map_reduce_definition_round_trips_over_http_and_a_bad_one_is_a_400_naming_each_field()
    {
        await using var server = await StartAsync();

        using var created = await server.PutAsync("/indexes/Orders/RevenuePerHour", RevenuePerHour);
        await ReadJsonAsync(created, HttpStatusCode.Created);
        var shown = await server.GetJsonAsync("/indexes/Orders/RevenuePerHour");
        var reduce = shown.GetProperty("definition").GetProperty("reduce");
        Assert.Equal("Hour", reduce.GetProperty("groupBy")[1].GetProperty("name").GetString());
        Assert.Equal("1h", reduce.GetProperty("groupBy")[1].GetProperty("interval").GetString());
        Assert.False(reduce.GetProperty("groupBy")[0].TryGetProperty("interval", out _));
        Assert.Equal("countDistinct", reduce.GetProperty("aggregates")[5].GetProperty("function").GetString());
        var listed = (await server.GetJsonAsync("/indexes")).GetProperty("items")[0];
        Assert.Equal("Orders/RevenuePerHour", listed.GetProperty("name").GetString());
        Assert.True(listed.GetProperty("mapReduce").GetBoolean());
        using var unchanged = await server.PutAsync("/indexes/Orders/RevenuePerHour", shown.GetProperty("definition").GetRawText());
        Assert.Equal("unchanged", (await ReadJsonAsync(unchanged, HttpStatusCode.OK)).GetProperty("outcome").GetString());

        using var bad = await server.PutAsync("/indexes/Bad", RevenuePerHour.Replace("\"sum\",\"field\":\"Total\"", "\"sum\",\"field\":\"Status\"", StringComparison.Ordinal)
            .Replace("\"interval\":\"1h\"", "\"interval\":\"1 hour\"", StringComparison.Ordinal));
        Assert.Equal(HttpStatusCode.BadRequest, bad.StatusCode);
        using var problem = JsonDocument.Parse(await bad.Content.ReadAsStringAsync());
        var errors = problem.RootElement.GetProperty("errors").EnumerateArray()
            .ToDictionary(e => e.GetProperty("field").GetString()!, e => e.GetProperty("message").GetString()!);
        Assert.Equal(["reduce.aggregates[1].field", "reduce.groupBy[1].interval"], errors.Keys.Order(StringComparer.Ordinal));
        Assert.Contains("field 'Status' of type keyword", errors["reduce.aggregates[1].field"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task From_index_answers_group_rows_filtered_sorted_and_paged_as_the_documents_say()
    {
        await using var api = await StartAsync();
        await PutOrdersAsync(api.Store, 600); // 10 hours, 3 statuses
        using var created = await api.PutAsync("/indexes/Orders/RevenuePerHour", RevenuePerHour);
        await ReadJsonAsync(created, HttpStatusCode.Created);

        var answer = await QueryAsync(
            api.Client,
            "from index 'Orders/RevenuePerHour' where Status = 'SHIPPED' and Hour between $from and $to order by Revenue desc limit 3",
            new { from = "2026-11-01T02:00:00Z", to = "2026-11-01T05:00:00Z" });

        Assert.Equal("Orders/RevenuePerHour", answer.GetProperty("indexName").GetString());
        Assert.False(answer.GetProperty("isStale").GetBoolean());
        Assert.Equal(4, answer.GetProperty("totalResults").GetInt64());
        var rows = Results(answer);
        Assert.Equal([5, 4, 3], rows.Select(r => r.GetProperty("Hour").GetDateTime().Hour));
        var top = rows[0];
        var expected = Enumerable.Range(300, 60).Where(i => i % 3 == 1).ToList(); // the shipped orders of 05:00-05:59
        Assert.Equal("shipped", top.GetProperty("Status").GetString());
        Assert.Equal(expected.Count, top.GetProperty("Orders").GetInt64());
        Assert.Equal(expected.Sum(), top.GetProperty("Revenue").GetDouble());
        Assert.Equal(expected.Average(), top.GetProperty("Average").GetDouble());
        Assert.Equal(expected.Min(), top.GetProperty("Smallest").GetDouble());
        Assert.Equal(expected.Max(), top.GetProperty("Largest").GetDouble());
        Assert.Equal(expected.Select(i => (i % 2 == 0 ? "acme-" : "globex-") + (i % 5).ToString(CultureInfo.InvariantCulture)).Distinct().Count(), top.GetProperty("Customers").GetInt64());

        // Deleting the largest order of the group moves max to the next one without a rescan; deleting them all removes the group.
        await api.Store.WriteAsync(new WriteBatch().Delete($"orders/{expected.Max()}"));
        var after = Results(await QueryAsync(api.Client, "from index 'Orders/RevenuePerHour' where Status = 'shipped' and Hour = '2026-11-01T05:00:00Z'"));
        Assert.Equal(expected[^2], Assert.Single(after).GetProperty("Largest").GetDouble());
        var batch = new WriteBatch();
        expected.ForEach(i => batch.Delete($"orders/{i}"));
        await api.Store.WriteAsync(batch);
        Assert.Empty(Results(await QueryAsync(api.Client, "from index 'Orders/RevenuePerHour' where Status = 'shipped' and Hour = '2026-11-01T05:00:00Z'")));
    }

    [Fact]
    public async Task Continuation_tokens_page_through_every_group_once()
    {
        await using var api = await StartAsync();
        await PutOrdersAsync(api.Store, 1_200); // 20 hours x 3 statuses = 60 groups
        using var created = await api.PutAsync("/indexes/Orders/RevenuePerHour", RevenuePerHour);
        await ReadJsonAsync(created, HttpStatusCode.Created);

        var seen = new List<(string, DateTime)>();
        var revenues = new List<double>();
        string? continuation = null;
        do
        {
            var page = await QueryAsync(api.Client, "from index 'Orders/RevenuePerHour' select Status, Hour, Revenue order by Revenue desc limit 7", continuation: continuation);
            foreach (var row in Results(page))
            {
                seen.Add((row.GetProperty("Status").GetString()!, row.GetProperty("Hour").GetDateTime()));
                revenues.Add(row.GetProperty("Revenue").GetDouble());
                Assert.False(row.TryGetProperty("Orders", out _));
            }

            continuation = page.GetProperty("continuation").ValueKind == JsonValueKind.String ? page.GetProperty("continuation").GetString() : null;
        }
        while (continuation != null);

        Assert.Equal(60, seen.Count);
        Assert.Equal(60, seen.Distinct().Count());
        Assert.Equal(revenues.OrderByDescending(r => r), revenues);
    }

    [Fact]
    public async Task A_query_on_an_unknown_column_is_a_400_naming_the_columns()
    {
        await using var api = await StartAsync();
        using var created = await api.PutAsync("/indexes/Orders/RevenuePerHour", RevenuePerHour);
        await ReadJsonAsync(created, HttpStatusCode.Created);

        using var response = await PostAsync(api.Client, "from index 'Orders/RevenuePerHour' where Total > 5");

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("has no column 'Total'; its columns are Status, Hour, Orders, Revenue, Average, Smallest, Largest, Customers", detail, StringComparison.Ordinal);
    }

    [Fact]
    public void A_configured_reduce_becomes_the_definition_a_put_would_make_and_its_problems_name_their_settings()
    {
        var options = new ConfiguredIndexesOptions
        {
            Indexes =
            [
                new ConfiguredIndex
                {
                    Name = "Orders/PerHour",
                    Collections = ["Orders"],
                    Fields = [new ConfiguredIndexField { Name = "OrderedAt", Path = "OrderedAt", Type = "datetime" }, new ConfiguredIndexField { Name = "Total", Path = "Total", Type = "number" }],
                    Reduce = new ConfiguredReduce
                    {
                        GroupBy = [new ConfiguredGroupKey { Name = "Hour", Field = "OrderedAt", Interval = "1h" }],
                        Aggregates = [new ConfiguredAggregate { Name = "Revenue", Function = "sum", Field = "Total" }],
                    },
                },
                new ConfiguredIndex
                {
                    Name = "Orders/Bad",
                    Collections = ["Orders"],
                    Fields = [new ConfiguredIndexField { Name = "Total", Path = "Total", Type = "number" }],
                    Reduce = new ConfiguredReduce { Aggregates = [new ConfiguredAggregate { Name = "Top", Function = "max" }] },
                },
            ],
        };

        Assert.Equal(["Ingest:Indexes:1:Reduce:Aggregates:0:Field: aggregate 'Top' (max) needs a field."], options.Validate());
        options.Indexes.RemoveAt(1);
        var definition = Assert.Single(options.ToDefinitions());
        Assert.Equal(
            new ReduceDefinition([new GroupKeyDefinition("Hour", "OrderedAt", "1h")], [new AggregateDefinition("Revenue", AggregateKind.Sum, "Total")]),
            definition.Reduce);
    }
}
