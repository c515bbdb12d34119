using System.Text.Json.Nodes;
using static Ingest.Query.Tests.Aggregation.AggregationModelTests;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>
/// Facets, <c>group by</c> on keyword fields (read from their ordinal columns) and time buckets against a brute-force
/// computation over the documents, while documents are updated (often to terms the index never saw), deleted and put
/// back: the columns must follow every change, and new terms must sort among the old ones.
/// </summary>
public sealed class OrdinalAggregationModelTests
{
    [Fact]
    public async Task Keyword_groups_and_facets_follow_updates_deletes_and_new_terms()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        await using var host = await AggregationHost.OpenAsync();
        var orders = new List<Order?>();
        var documents = new List<string>();
        for (var i = 0; i < 300 * TestSeed.Scale; i++)
        {
            var (order, json) = RandomOrder(random);
            orders.Add(order);
            documents.Add(json);
        }

        await host.WriteAsync([.. documents]);
        for (var round = 0; round < 12; round++)
        {
            // New words each round, some sorting before every old one ("0..."), some between ("b-..."), some after.
            string[] words = ["Acme", "b", "zeta", $"0new{round}", $"b-{round}", $"zz{round}", $"Ünï{round}"];
            var puts = new List<(int, string)>();
            var deletes = new List<int>();
            for (var i = 0; i < orders.Count; i++)
            {
                var roll = random.Next(10);
                if (roll < 2)
                {
                    var (order, json) = RandomOrder(random, words);
                    orders[i] = order;
                    puts.Add((i, json));
                }
                else if (roll == 2 && orders[i] != null)
                {
                    orders[i] = null;
                    deletes.Add(i);
                }
            }

            await host.ChangeAsync(puts, deletes);
            var context = $"seed {seed} (INGEST_TEST_SEED), round {round}";
            foreach (var share in new[] { 1.0, random.NextDouble(), 0.01 })
            {
                var subset = new HashSet<int>();
                for (var i = 0; i < orders.Count; i++)
                {
                    if (orders[i] != null && random.NextDouble() < share)
                    {
                        subset.Add(i);
                    }
                }

                var matched = subset.Order().Select(i => orders[i]!).ToList();
                AssertSame(Expected.Facets(matched), host.Run("from Orders select facet(Tags), facet(Scores, ranges(10, 20, 50)) as s, facet(Total, ranges(0, 25.5)) as t", subset), context);
                AssertSame(Expected.StatusByCount(matched), host.Run("from Orders group by Status select count() as n order by count() desc, Status limit 3 offset 1", subset), context);
                AssertSame(Expected.GroupByTagsAndPaid(matched), host.Run("from Orders group by Tags, Paid select count(), sum(Total), avg(Total), min(OrderedAt), count(Status)", subset), context);
                AssertSame(StatusInOrder(matched), host.Run("from Orders group by Status select count(), max(Total)", subset), context);
                AssertSame(Expected.Histogram(matched, "1w")!, host.Run("from Orders group by time(OrderedAt, '1w') select count(), max(Total)", subset), context);
            }
        }
    }

    /// <summary>Every status group in value order (unsigned UTF-8 bytes), with its count and largest total.</summary>
    private static JsonArray StatusInOrder(List<Order> orders)
    {
        var rows = new JsonArray();
        var groups = orders.Where(o => o.Status != null).GroupBy(o => o.Status!)
            .OrderBy(g => System.Text.Encoding.UTF8.GetBytes(g.Key), Comparer<byte[]>.Create((x, y) => x.AsSpan().SequenceCompareTo(y)));
        foreach (var group in groups)
        {
            var totals = group.Where(o => o.Total != null).Select(o => o.Total!.Value).ToList();
            rows.Add(new JsonObject { ["Status"] = group.Key, ["count()"] = group.Count(), ["max(Total)"] = totals.Count == 0 ? null : totals.Max() });
        }

        return rows;
    }

    private static void AssertSame(JsonArray expected, JsonArray actual, string context) =>
        Assert.True(expected.ToJsonString() == actual.ToJsonString(), $"{context}\nexpected {expected.ToJsonString()}\nactual   {actual.ToJsonString()}");
}
