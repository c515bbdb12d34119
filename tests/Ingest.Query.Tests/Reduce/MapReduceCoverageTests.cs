using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.Reduce;

/// <summary>
/// A collection <c>group by</c> that a map-reduce index covers is answered from its group rows, and the answer is the
/// one query-time aggregation gives over a plain map index of the same fields: randomized orders (missing, null and
/// wrong-typed keys, multi-valued tags, groups that empty out after updates and deletes), row for row, byte for byte.
/// </summary>
public sealed class MapReduceCoverageTests
{
    private static readonly AggregateDefinition[] Aggregates =
    [
        new("Orders", AggregateKind.Count),
        new("Priced", AggregateKind.Count, "Total"),
        new("Revenue", AggregateKind.Sum, "Total"),
        new("Mean", AggregateKind.Avg, "Total"),
        new("Least", AggregateKind.Min, "Total"),
        new("Most", AggregateKind.Max, "Total"),
        new("First", AggregateKind.Min, "OrderedAt"),
        new("Last", AggregateKind.Max, "OrderedAt"),
    ];

    private static readonly IndexDefinition Plain = MapReduceOrders.Plain;

    private static readonly IndexDefinition[] Reduced =
    [
        MapReduce("Orders/ByStatus", new GroupKeyDefinition("State", "Status")),
        MapReduce("Orders/ByStatusPaid", new GroupKeyDefinition("Status", "Status"), new GroupKeyDefinition("Paid", "Paid")),
        MapReduce("Orders/ByTags", new GroupKeyDefinition("Tag", "Tags")),
        MapReduce("Orders/ByStatusHour", new GroupKeyDefinition("Status", "Status"), new GroupKeyDefinition("Hour", "OrderedAt", "1h")),
    ];

    public static TheoryData<string, string> Covered => new()
    {
        { "from Orders group by Status select count(), sum(Total)", "Orders/ByStatus" },
        { "from Orders group by Status select Status as S, count(Total), avg(Total), min(Total), max(Total), min(OrderedAt), max(OrderedAt)", "Orders/ByStatus" },
        { "from Orders group by Status order by sum(Total) desc, count() limit 2", "Orders/ByStatus" },
        { "from Orders where Status = 'SHIPPED' or Status = 'pending' group by Status select count()", "Orders/ByStatus" },
        { "from Orders group by Paid, Status select count(), sum(Total) order by Status desc", "Orders/ByStatusPaid" },
        { "from Orders where Paid = true and not Status in ('void') group by Status, Paid select sum(Total) offset 1", "Orders/ByStatusPaid" },
        { "from Orders group by Tags select count(), sum(Total), max(OrderedAt)", "Orders/ByTags" },
        { "from Orders group by Status, time(OrderedAt, '60m') select count(), sum(Total)", "Orders/ByStatusHour" },
        { "from Orders where Status != 'void' group by time(OrderedAt, $i), Status select count() order by count() desc", "Orders/ByStatusHour" },
    };

    public static TheoryData<string> NotCovered => new()
    {
        "from Orders where Tags = 'red' group by Tags select count()",        // a multi-valued key filtered keeps other tags' groups
        "from Orders group by time(OrderedAt, '30m'), Status select count()", // another bucket width
        "from Orders where Total > 10 group by Status select count()",        // a condition on a non-key
        "from Orders group by Total select count()",                          // a number key: first value vs every value
        "from Orders group by Status, Tags select count()",                   // no index with these keys
    };

    [Theory]
    [MemberData(nameof(Covered))]
    public async Task A_covered_group_by_reads_the_map_reduce_index_and_answers_as_query_time_aggregation(string text, string index)
    {
        await using var host = await OpenAsync();
        var random = new Random(text.Length * 7919);
        for (var round = 0; round < 4; round++)
        {
            await ChangeAsync(host, random, round);
            var (expected, auto, plan) = await BothAsync(host, text);
            Assert.Equal(index, auto.Index);
            Assert.Equal(expected, auto.Rows);
            Assert.Equal("map-reduce-index", plan.Steps[0].Operation);
            Assert.Contains($"'{index}'", plan.Steps[0].Detail, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(NotCovered))]
    public async Task A_group_by_the_map_reduce_index_would_answer_differently_is_aggregated_at_query_time(string text)
    {
        await using var host = await OpenAsync();
        await ChangeAsync(host, new Random(17), 0);
        var (expected, auto, plan) = await BothAsync(host, text);
        Assert.Equal(expected, auto.Rows);
        Assert.Equal("query-time-aggregation", plan.Steps[0].Operation);
        Assert.DoesNotContain(plan.Steps, s => s.Operation == "map-reduce-groups"); // another index's map part may aggregate
        Assert.StartsWith("map-reduce index 'Orders/", plan.Steps[0].Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_stale_map_reduce_index_answers_with_stale_and_waits_when_asked()
    {
        await using var host = await OpenAsync();
        await ChangeAsync(host, new Random(3), 0);
        var batch = new WriteBatch();
        for (var i = 0; i < 2000; i++)
        {
            batch.Put($"more/{i}", "Orders", "{\"Status\":\"late\",\"Total\":1}");
        }

        await host.Store.WriteAsync(batch); // not waited for: the query waits
        using var waited = await host.Engine.StartAsync(
            "from Orders group by Status select count()", new Dictionary<string, JsonElement>(), new QueryOptions { WaitForNonStale = TimeSpan.FromSeconds(30) });
        Assert.Equal("Orders/ByStatus", waited.IndexName);
        Assert.False(waited.IsStale);
        Assert.Contains("{\"Status\":\"late\",\"count()\":2000}", await MapReduceOrders.WriteAsync(waited.Results), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Hour between '2026-11-27T01:00:00Z' and '2026-11-27T03:00:00Z'", "not (Hour < '2026-11-27T01:00:00Z' or Hour > '2026-11-27T03:00:00Z')")]
    [InlineData("Hour > '2026-11-27T01:30:00Z' and Status = 'shipped' and Hour <= '2026-11-27T04:00:00Z'", "Status = 'shipped' and not (Hour <= '2026-11-27T01:30:00Z' or Hour > '2026-11-27T04:00:00Z')")]
    [InlineData("Hour >= '2026-11-27T05:00:00Z'", "not Hour < '2026-11-27T05:00:00Z'")]
    [InlineData("Hour < '2026-11-27T00:30:00Z' and Hour >= '2020-01-01T00:00:00Z'", "not (Hour >= '2026-11-27T00:30:00Z' or Hour < '2020-01-01T00:00:00Z')")]
    [InlineData("Hour between '2027-01-01T00:00:00Z' and '2027-02-01T00:00:00Z'", "not (Hour < '2027-01-01T00:00:00Z' or Hour > '2027-02-01T00:00:00Z')")]
    public async Task A_range_of_a_leading_time_key_reads_only_its_groups_and_finds_what_a_full_read_finds(string range, string sameWithoutRange)
    {
        var byHour = MapReduce("Orders/ByHourStatus", new GroupKeyDefinition("Hour", "OrderedAt", "1h"), new GroupKeyDefinition("Status", "Status"));
        await using var host = await QueryHost.OpenAsync(byHour);
        var random = new Random(11);
        for (var round = 0; round < 3; round++)
        {
            var batch = new WriteBatch();
            for (var i = 0; i < 300; i++)
            {
                batch.Put($"orders/{i}", "Orders", Order(random, round));
            }

            await host.Store.WriteAsync(batch);
            await host.CatchUpAsync(byHour.Name);
            var sought = await host.QueryAsync($"from index 'Orders/ByHourStatus' where {range}");
            var read = await host.QueryAsync($"from index 'Orders/ByHourStatus' where exists(Hour) and ({sameWithoutRange})"); // not (null < x) is true
            Assert.Equal(read.Rows.Select(r => r.GetRawText()), sought.Rows.Select(r => r.GetRawText()));
            Assert.Equal(read.Total, sought.Total);
        }
    }

    private static IndexDefinition MapReduce(string name, params GroupKeyDefinition[] keys) => MapReduceOrders.MapReduce(name, Aggregates, keys);

    private static async Task<QueryHost> OpenAsync()
    {
        var host = await QueryHost.OpenAsync([Plain, .. Reduced]);
        return host;
    }

    /// <summary>Round 0 writes 300 orders; later rounds update a third, delete a sixth and bring some back.</summary>
    private static Task ChangeAsync(QueryHost host, Random random, int round) =>
        MapReduceOrders.ChangeAsync(host, Reduced, random, round, 300, Order);

    private static string Order(Random random, int round)
    {
        var fields = new List<string>();
        string[] statuses = ["\"shipped\"", "\"Shipped\"", "\"pending\"", "\"void\"", "null", "5"];
        if (random.Next(8) > 0)
        {
            // Round 3 never writes 'void': that group empties out.
            fields.Add($"\"Status\":{statuses[random.Next(round == 3 ? 3 : statuses.Length)]}");
        }

        if (random.Next(4) > 0)
        {
            fields.Add($"\"Paid\":{(random.Next(2) == 0 ? "true" : "false")}");
        }

        string[] tags = ["red", "blue", "Green"];
        fields.Add($"\"Tags\":[{string.Join(",", Enumerable.Range(0, random.Next(4)).Select(_ => $"\"{tags[random.Next(tags.Length)]}\""))}]");
        if (random.Next(6) > 0)
        {
            // Quarters are exact in binary: sums are the same in any order.
            fields.Add($"\"Total\":{random.Next(-40, 4000) / 4.0}");
        }

        if (random.Next(7) > 0)
        {
            var at = new DateTime(2026, 11, 27, 0, 0, 0, DateTimeKind.Utc).AddMinutes(random.Next(6 * 60));
            fields.Add($"\"OrderedAt\":\"{at:yyyy-MM-ddTHH:mm:ssZ}\"");
        }

        return "{" + string.Join(",", fields) + "}";
    }

    private static readonly Dictionary<string, JsonElement> Parameters = new() { ["i"] = JsonSerializer.SerializeToElement("1h") };

    /// <summary>Query-time aggregation over the plain index, the engine's own choice, and the engine's plan.</summary>
    private static async Task<(string Expected, (string? Index, string Rows) Auto, QueryPlan Plan)> BothAsync(QueryHost host, string text)
    {
        var expected = await MapReduceOrders.QueryTimeAsync(host, text, Parameters);
        using var running = await host.Engine.StartAsync(text, Parameters, new QueryOptions { WaitForNonStale = TimeSpan.FromSeconds(30) });
        var rows = await MapReduceOrders.WriteAsync(running.Results);
        var (_, plan) = await host.Engine.ExplainAsync(text, Parameters);
        return (expected, (running.IndexName, rows), plan);
    }
}
