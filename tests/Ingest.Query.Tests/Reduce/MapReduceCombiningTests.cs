using System.Globalization;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;
using Xunit.Abstractions;

namespace Ingest.Query.Tests.Reduce;

/// <summary>
/// A collection aggregation that no map-reduce index holds row for row, but whose groups combine into it (a coarser
/// multiple of the time buckets, fewer keys, a facet, a plain count, a time range on the time key's field, aligned
/// or not), is answered from the index's groups plus a query-time pass over the range's partial edge buckets, and the
/// answer is the one query-time aggregation gives over a plain map index of the same fields, byte for byte: random
/// orders (timestamps on and between bucket boundaries, missing and wrong-typed values), random ranges, after puts,
/// updates and deletes. The seed is printed; INGEST_TEST_SEED replays it.
/// </summary>
public sealed class MapReduceCombiningTests
{
    private static readonly DateTime Start = new(2026, 11, 27, 0, 0, 0, DateTimeKind.Utc);

    private static readonly AggregateDefinition[] Aggregates =
    [
        new("Orders", AggregateKind.Count),
        new("Revenue", AggregateKind.Sum, "Total"),
        new("Least", AggregateKind.Min, "Total"),
        new("Most", AggregateKind.Max, "Total"),
        new("First", AggregateKind.Min, "OrderedAt"),
    ];

    private static readonly IndexDefinition Plain = MapReduceOrders.Plain;

    private static readonly IndexDefinition[] Reduced =
    [
        MapReduce("Orders/ByStatus5m", new GroupKeyDefinition("Status", "Status"), new GroupKeyDefinition("Time", "OrderedAt", "5m")),
        MapReduce("Orders/ByHourPaid", new GroupKeyDefinition("Hour", "OrderedAt", "1h"), new GroupKeyDefinition("Paid", "Paid")),
        MapReduce("Orders/ByTagHour", new GroupKeyDefinition("Tag", "Tags"), new GroupKeyDefinition("Hour", "OrderedAt", "1h")),
    ];

    private static readonly string[] Intervals = ["5m", "10m", "15m", "1h", "2h", "1d"];

    /// <summary>Each with the time range <c>$range</c> stands for, and the index that must answer it.</summary>
    private static readonly (string Query, string Index)[] Combined =
    [
        ("from Orders where $range group by time(OrderedAt, $interval), Status select count()", "Orders/ByStatus5m"),
        ("from Orders where $range group by time(OrderedAt, '5m') select sum(Total) as Revenue", "Orders/ByStatus5m"),
        ("from Orders where $range group by Status select sum(Total) as Revenue, count() as Orders order by sum(Total) desc limit 3", "Orders/ByStatus5m"),
        ("from Orders where $range select facet(Status)", "Orders/ByStatus5m"),
        ("from Orders where $range group by time(OrderedAt, $interval) select avg(Total) as AverageOrder", "Orders/ByStatus5m|Orders/ByHourPaid"), // hourly buckets for 1h, 2h, 1d
        ("from Orders where $range select count()", "Orders/ByHourPaid"),
        ("from Orders where $range group by Paid select min(Total), max(Total), count(Total), min(OrderedAt), avg(Total) order by avg(Total) desc", "Orders/ByHourPaid"),
        ("from Orders where $range and Status in ('shipped', 'pending') group by time(OrderedAt, $interval) select sum(Total), max(Total)", "Orders/ByStatus5m"),
        ("from Orders where Status != 'void' and $range group by Status select count() offset 1", "Orders/ByStatus5m"),
        ("from Orders group by Paid select count(), sum(Total)", "Orders/ByHourPaid"),
        ("from Orders group by Status select count() order by avg(Total)", "Orders/ByStatus5m"), // no average (no Total): last both ways
        ("from Orders where $range select facet(Paid)", "Orders/ByHourPaid"),
        ("from Orders where $range group by Tags select count(), sum(Total)", "Orders/ByTagHour"),
    ];

    private readonly ITestOutputHelper _output;

    public MapReduceCombiningTests(ITestOutputHelper output) => _output = output;

    public static TheoryData<int> Queries()
    {
        var data = new TheoryData<int>();
        for (var i = 0; i < Combined.Length; i++)
        {
            data.Add(i);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Queries))]
    public async Task An_aggregation_whose_groups_an_index_combines_into_answers_as_query_time_aggregation(int which)
    {
        var seed = int.TryParse(Environment.GetEnvironmentVariable("INGEST_TEST_SEED"), CultureInfo.InvariantCulture, out var s) ? s : 1000 + which;
        _output.WriteLine($"seed {seed} (INGEST_TEST_SEED replays it)");
        var random = new Random(seed);
        var (text, index) = Combined[which];
        await using var host = await QueryHost.OpenAsync([Plain, .. Reduced]);
        for (var round = 0; round < 3; round++)
        {
            await ChangeAsync(host, random, round);
            for (var probe = 0; probe < 12; probe++)
            {
                var (range, parameters) = RandomRange(random);
                var query = text.Replace("$range", range, StringComparison.Ordinal);
                var (expected, actual, indexName, plan) = await BothAsync(host, query, parameters);
                Assert.True(expected == actual, $"{query} {JsonSerializer.Serialize(parameters)}\nexpected {expected}\nactual   {actual}");
                Assert.Contains(indexName, index.Split('|'));
                Assert.Equal("map-reduce-index", plan.Steps[0].Operation);
                Assert.Contains($"'{indexName}'", plan.Steps[0].Detail, StringComparison.Ordinal);
                Assert.Contains(plan.Steps, step => step.Operation == "map-reduce-combine");
            }
        }
    }

    [Theory]
    [InlineData("from Orders where OrderedAt between $from and $to group by time(OrderedAt, '7m') select count()")] // 7m is no multiple of 5m nor 1h
    [InlineData("from Orders where OrderedAt between $from and $to group by time(OrderedAt, '1M') select count()")] // months are no fixed multiple
    [InlineData("from Orders where OrderedAt between $from and $to and Total > 10 select count()")]                // a condition on a non-key
    [InlineData("from Orders where OrderedAt between $from and $to or Status = 'void' select count()")]          // a range under an or
    [InlineData("from Orders where OrderedAt between $from and $to group by Tags, Status select count()")]       // no index groups by both
    [InlineData("from Orders where OrderedAt between $from and $to group by Status select count(), facet(Paid)")] // facets and groups at once
    [InlineData("from Orders where OrderedAt between $from and $to group by Status select sum(OrderedAt)")]      // no aggregate to combine from
    public async Task An_aggregation_no_index_combines_into_exactly_is_answered_at_query_time(string text)
    {
        await using var host = await QueryHost.OpenAsync([Plain, .. Reduced]);
        await ChangeAsync(host, new Random(5), 0);
        var parameters = new Dictionary<string, JsonElement>
        {
            ["from"] = JsonSerializer.SerializeToElement("2026-11-27T01:02:03Z"),
            ["to"] = JsonSerializer.SerializeToElement("2026-11-27T20:00:00Z"),
        };
        string expected;
        try
        {
            (expected, _, _, _) = await BothAsync(host, text, parameters);
        }
        catch (QueryException)
        {
            return; // the query-time answer is an error too (sum of a datetime): what matters is that no index answered
        }

        var (_, plan) = await host.Engine.ExplainAsync(text, parameters);
        Assert.DoesNotContain(plan.Steps, step => step.Operation is "map-reduce-index" or "map-reduce-combine");
        Assert.NotEmpty(expected);
    }

    [Fact]
    public async Task The_instant_between_includes_at_its_upper_bound_is_counted_from_the_documents()
    {
        await using var host = await QueryHost.OpenAsync([Plain, .. Reduced]);
        var at = Start.AddHours(2);
        await host.PutAsync("Orders", [
            ("orders/1", $"{{\"Status\":\"shipped\",\"Total\":10,\"OrderedAt\":\"{at.AddMinutes(-1):O}\"}}"),
            ("orders/2", $"{{\"Status\":\"shipped\",\"Total\":20,\"OrderedAt\":\"{at:O}\"}}"),        // exactly $to: in
            ("orders/3", $"{{\"Status\":\"shipped\",\"Total\":40,\"OrderedAt\":\"{at.AddTicks(1):O}\"}}"), // one tick after: out
        ]);
        foreach (var index in Reduced.Prepend(Plain))
        {
            await host.CatchUpAsync(index.Name);
        }

        var parameters = new Dictionary<string, JsonElement>
        {
            ["from"] = JsonSerializer.SerializeToElement(Start),
            ["to"] = JsonSerializer.SerializeToElement(at),
        };
        var (expected, actual, index2, plan) = await BothAsync(host, "from Orders where OrderedAt between $from and $to select count(), sum(Total)", parameters);
        _output.WriteLine($"index {index2}\nexplain {JsonSerializer.Serialize(plan.Steps)}\nresults {actual}");
        Assert.Equal("[{\"count()\":2,\"sum(Total)\":30}]", expected);
        Assert.Equal(expected, actual);
        Assert.StartsWith("Orders/", index2, StringComparison.Ordinal);
        Assert.Contains(plan.Steps, step => step.Operation == "map-reduce-combine" && step.Detail.Contains("aggregated at query time", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("from Orders where OrderedAt between $from and $to select count(), sum(Total), avg(Total), min(Total), min(OrderedAt)")]
    [InlineData("from Orders where OrderedAt between $from and $to group by time(OrderedAt, '10m'), Status select count(), avg(Total)")]
    [InlineData("from Orders where OrderedAt between $from and $to select facet(Status)")]
    public async Task An_edge_without_documents_is_not_aggregated_and_the_answer_is_the_query_time_one(string text)
    {
        await using var host = await QueryHost.OpenAsync([Plain, .. Reduced]);
        var at = Start.AddHours(2);
        await host.PutAsync("Orders", [
            ("orders/1", $"{{\"Status\":\"shipped\",\"Total\":10,\"OrderedAt\":\"{at.AddMinutes(-7):O}\"}}"),
            ("orders/2", $"{{\"Status\":\"void\",\"Total\":20,\"OrderedAt\":\"{at.AddTicks(-1):O}\"}}"),   // the last tick before $to's bucket
            ("orders/3", $"{{\"Status\":\"shipped\",\"Total\":40,\"OrderedAt\":\"{at.AddTicks(1):O}\"}}"),  // one tick after $to: out
            ("orders/4", "{\"Status\":\"shipped\",\"Total\":80,\"OrderedAt\":\"not a date\"}"),
        ]);
        foreach (var index in Reduced.Prepend(Plain))
        {
            await host.CatchUpAsync(index.Name);
        }

        foreach (var (from, to) in new[] { (Start, at), (at.AddDays(1), at.AddDays(2)), (at.AddTicks(-1), at.AddTicks(-1)) })
        {
            var parameters = new Dictionary<string, JsonElement>
            {
                ["from"] = JsonSerializer.SerializeToElement(from),
                ["to"] = JsonSerializer.SerializeToElement(to), // no order at $to: its edge holds nothing (the last: one order, all edge)
            };
            var (expected, actual, _, plan) = await BothAsync(host, text, parameters);
            _output.WriteLine($"{from:O}..{to:O}: {actual}");
            Assert.Equal(expected, actual);
            Assert.Contains(plan.Steps, step => step.Operation == "map-reduce-combine");
        }
    }

    private static IndexDefinition MapReduce(string name, params GroupKeyDefinition[] keys) => MapReduceOrders.MapReduce(name, Aggregates, keys);

    /// <summary>A range on OrderedAt: between, or two comparisons; bounds on bucket starts, on minutes, or anywhere.</summary>
    private static (string Range, Dictionary<string, JsonElement> Parameters) RandomRange(Random random)
    {
        DateTime Instant() => random.Next(3) switch
        {
            0 => Start.AddMinutes(5 * random.Next(-6, 2 * 24 * 12 + 6)),
            1 => Start.AddHours(random.Next(-1, 50)),
            _ => Start.AddSeconds(random.Next(-600, 2 * 24 * 3600)).AddTicks(random.Next(10_000_000)),
        };

        var (from, to) = (Instant(), Instant());
        if (random.Next(8) > 0 && from > to)
        {
            (from, to) = (to, from);
        }

        var range = random.Next(4) switch
        {
            0 => "OrderedAt >= $from and OrderedAt < $to",
            1 => "OrderedAt > $from and OrderedAt <= $to",
            2 => "OrderedAt >= $from",
            _ => "OrderedAt between $from and $to",
        };
        var parameters = new Dictionary<string, JsonElement>
        {
            ["from"] = JsonSerializer.SerializeToElement(from),
            ["to"] = JsonSerializer.SerializeToElement(to),
            ["interval"] = JsonSerializer.SerializeToElement(Intervals[random.Next(Intervals.Length)]),
        };
        return (range, parameters);
    }

    /// <summary>Round 0 writes 400 orders over two days; later rounds update a third, delete a sixth and bring some back.</summary>
    private static Task ChangeAsync(QueryHost host, Random random, int round) =>
        MapReduceOrders.ChangeAsync(host, Reduced, random, round, 400, static (random, _) => Order(random));

    private static string Order(Random random)
    {
        var fields = new List<string>();
        string[] statuses = ["\"shipped\"", "\"Shipped\"", "\"pending\"", "\"void\"", "null", "5"];
        if (random.Next(8) > 0)
        {
            fields.Add($"\"Status\":{statuses[random.Next(statuses.Length)]}");
        }

        if (random.Next(4) > 0)
        {
            fields.Add($"\"Paid\":{(random.Next(2) == 0 ? "true" : "false")}");
        }

        string[] tags = ["red", "blue"];
        fields.Add($"\"Tags\":[{string.Join(",", Enumerable.Range(0, random.Next(3)).Select(_ => $"\"{tags[random.Next(tags.Length)]}\""))}]");
        if (random.Next(6) > 0)
        {
            // Quarters are exact in binary: sums are the same in any order.
            fields.Add($"\"Total\":{(random.Next(-40, 4000) / 4.0).ToString(CultureInfo.InvariantCulture)}");
        }

        if (random.Next(9) > 0)
        {
            // A third on a 5-minute boundary (the instants ranges start and end on), the rest anywhere to the tick.
            var at = random.Next(3) == 0
                ? Start.AddMinutes(5 * random.Next(2 * 24 * 12))
                : Start.AddSeconds(random.Next(2 * 24 * 3600)).AddTicks(random.Next(10_000_000));
            fields.Add($"\"OrderedAt\":\"{at:O}\"");
        }

        return "{" + string.Join(",", fields) + "}";
    }

    /// <summary>Query-time aggregation over the plain index, and the engine's own answer, index and plan.</summary>
    private static async Task<(string Expected, string Actual, string? Index, QueryPlan Plan)> BothAsync(QueryHost host, string text, Dictionary<string, JsonElement> parameters)
    {
        var expected = await MapReduceOrders.QueryTimeAsync(host, text, parameters);
        using var running = await host.Engine.StartAsync(text, parameters, new QueryOptions { WaitForNonStale = TimeSpan.FromSeconds(30) });
        var actual = await MapReduceOrders.WriteAsync(running.Results);
        var (_, plan) = await host.Engine.ExplainAsync(text, parameters);
        return (expected, actual, running.IndexName, plan);
    }
}
