using System.Globalization;
using System.Text.Json.Nodes;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>
/// Random orders (missing fields, wrong types, multi-valued arrays, mixed case) aggregated by the index and by a
/// brute-force computation over the documents themselves, over random match sets.
/// </summary>
public sealed class AggregationModelTests
{
    private static readonly string[] Words = ["Acme", "acme", "Beta", "b", "zeta", "Ünï", "ünï"];

    [Fact]
    public async Task Aggregations_equal_a_brute_force_computation_over_the_documents()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        await using var host = await AggregationHost.OpenAsync();
        var orders = new List<Order>();
        var documents = new List<string>();
        for (var i = 0; i < 400 * TestSeed.Scale; i++)
        {
            var (order, json) = RandomOrder(random);
            orders.Add(order);
            documents.Add(json);
        }

        await host.WriteAsync([.. documents]);
        for (var round = 0; round < 20; round++)
        {
            var subset = new HashSet<int>();
            var share = random.NextDouble();
            for (var i = 0; i < orders.Count; i++)
            {
                if (random.NextDouble() < share)
                {
                    subset.Add(i);
                }
            }

            var matched = orders.Where((_, i) => subset.Contains(i)).ToList();
            var context = $"seed {seed} (INGEST_TEST_SEED), round {round}";

            Assert.True(
                Expected.GroupByTagsAndPaid(matched).ToJsonString() == host.Run("from Orders group by Tags, Paid select count(), sum(Total), avg(Total), min(OrderedAt), count(Status)", subset).ToJsonString(),
                context);
            foreach (var interval in new[] { "1M", "1w", "3d", "1y", "7h" })
            {
                var expected = Expected.Histogram(matched, interval);
                if (expected == null)
                {
                    continue; // over 100,000 buckets: refused, tested elsewhere
                }

                Assert.Equal(expected.ToJsonString(), host.Run($"from Orders group by time(OrderedAt, '{interval}') select count(), max(Total)", subset).ToJsonString());
            }

            Assert.True(
                Expected.Facets(matched).ToJsonString() == host.Run("from Orders select facet(Tags), facet(Scores, ranges(10, 20, 50)) as s, facet(Total, ranges(0, 25.5)) as t", subset).ToJsonString(),
                context);
            Assert.True(
                Expected.StatusByCount(matched).ToJsonString() == host.Run("from Orders group by Status select count() as n order by count() desc, Status limit 3 offset 1", subset).ToJsonString(),
                context);
        }
    }

    internal static (Order Order, string Json) RandomOrder(Random random, string[]? words = null)
    {
        words ??= Words;
        var properties = new List<string>();
        var status = (string?)null;
        switch (random.Next(4))
        {
            case 0:
                break;
            case 1:
                properties.Add("\"Status\":7"); // wrong type: invisible
                break;
            default:
                status = words[random.Next(words.Length)];
                properties.Add($"\"Status\":\"{status}\"");
                break;
        }

        double? total = null;
        if (random.Next(5) > 0)
        {
            total = random.Next(-20, 200) / 2.0;
            properties.Add("\"Total\":" + total.Value.ToString(CultureInfo.InvariantCulture));
        }
        else if (random.Next(2) == 0)
        {
            properties.Add("\"Total\":\"12\"");
        }

        DateTime? orderedAt = null;
        if (random.Next(6) > 0)
        {
            orderedAt = new DateTime(2023, 11, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(random.Next(0, 200 * 86_400));
            properties.Add($"\"OrderedAt\":\"{orderedAt.Value:yyyy-MM-dd'T'HH:mm:ss'Z'}\"");
        }

        bool? paid = random.Next(3) switch { 0 => null, 1 => true, _ => false };
        if (paid != null)
        {
            properties.Add($"\"Paid\":{(paid.Value ? "true" : "false")}");
        }

        var tags = new List<string>();
        if (random.Next(4) > 0)
        {
            var count = random.Next(0, 4);
            for (var i = 0; i < count; i++)
            {
                tags.Add(words[random.Next(words.Length)]);
            }

            properties.Add("\"Tags\":[" + string.Join(",", tags.Select(t => $"\"{t}\"").Append("5")) + "]");
        }

        var scores = new List<double>();
        for (var i = random.Next(0, 4); i > 0; i--)
        {
            scores.Add(random.Next(0, 12) * 5);
        }

        properties.Add("\"Scores\":[" + string.Join(",", scores.Select(s => s.ToString(CultureInfo.InvariantCulture))) + "]");
        var order = new Order(
            status?.ToLowerInvariant(),
            total,
            orderedAt,
            paid,
            [.. tags.Select(t => t.ToLowerInvariant()).Distinct().Order(StringComparer.Ordinal)],
            [.. scores.Distinct().Order()]);
        return (order, "{" + string.Join(",", properties) + "}");
    }

    internal sealed record Order(string? Status, double? Total, DateTime? OrderedAt, bool? Paid, string[] Tags, double[] Scores);

    /// <summary>The semantics written out over the documents: QUERY_API.md "Aggregation".</summary>
    internal static class Expected
    {
        public static JsonArray GroupByTagsAndPaid(List<Order> orders)
        {
            var rows = new JsonArray();
            var groups = orders
                .Where(o => o.Paid != null)
                .SelectMany(o => o.Tags.Select(t => (Tag: t, Paid: o.Paid!.Value, Order: o)))
                .GroupBy(x => (x.Tag, x.Paid))
                .OrderBy(g => g.Key.Tag, StringComparer.Ordinal)
                .ThenBy(g => g.Key.Paid);
            foreach (var group in groups)
            {
                var totals = group.Where(x => x.Order.Total != null).Select(x => x.Order.Total!.Value).ToList();
                var times = group.Where(x => x.Order.OrderedAt != null).Select(x => x.Order.OrderedAt!.Value).ToList();
                rows.Add(new JsonObject
                {
                    ["Tags"] = group.Key.Tag,
                    ["Paid"] = group.Key.Paid,
                    ["count()"] = group.Count(),
                    ["sum(Total)"] = totals.Sum(),
                    ["avg(Total)"] = totals.Count == 0 ? null : totals.Sum() / totals.Count,
                    ["min(OrderedAt)"] = times.Count == 0 ? null : times.Min(),
                    ["count(Status)"] = group.Count(x => x.Order.Status != null),
                });
            }

            return rows;
        }

        public static JsonArray? Histogram(List<Order> orders, string interval)
        {
            var count = int.Parse(interval[..^1], CultureInfo.InvariantCulture);
            var unit = interval[^1];
            DateTime Start(DateTime t) => unit switch
            {
                'M' => new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddMonths(FloorDiv(((t.Year - 1970) * 12) + t.Month - 1, count) * count),
                'y' => new DateTime(1970 + (FloorDiv(t.Year - 1970, count) * count), 1, 1, 0, 0, 0, DateTimeKind.Utc),
                'w' => new DateTime(1969, 12, 29, 0, 0, 0, DateTimeKind.Utc).AddDays(FloorDiv((int)(t - new DateTime(1969, 12, 29, 0, 0, 0, DateTimeKind.Utc)).TotalDays, 7 * count) * 7.0 * count),
                'd' => DateTime.UnixEpoch.AddDays(FloorDiv((int)(t - DateTime.UnixEpoch).TotalDays, count) * (double)count),
                _ => DateTime.UnixEpoch.AddHours(FloorDiv((int)(t - DateTime.UnixEpoch).TotalHours, count) * (double)count),
            };

            var rows = new JsonArray();
            foreach (var group in orders.Where(o => o.OrderedAt != null).GroupBy(o => Start(o.OrderedAt!.Value)).OrderBy(g => g.Key))
            {
                var totals = group.Where(o => o.Total != null).Select(o => o.Total!.Value).ToList();
                rows.Add(new JsonObject
                {
                    ["time"] = group.Key,
                    ["count()"] = group.Count(),
                    ["max(Total)"] = totals.Count == 0 ? null : totals.Max(),
                });
            }

            return rows;
        }

        public static JsonArray Facets(List<Order> orders)
        {
            var rows = new JsonArray();
            foreach (var value in orders.SelectMany(o => o.Tags).GroupBy(t => t).OrderByDescending(g => g.Count()).ThenBy(g => g.Key, StringComparer.Ordinal))
            {
                rows.Add(new JsonObject { ["facet"] = "facet(Tags)", ["value"] = value.Key, ["count"] = value.Count() });
            }

            double[] boundaries = [double.NegativeInfinity, 10, 20, 50, double.PositiveInfinity];
            string[] labels = ["[-inf, 10)", "[10, 20)", "[20, 50)", "[50, inf)"];
            for (var r = 0; r < labels.Length; r++)
            {
                var (low, high) = (boundaries[r], boundaries[r + 1]);
                rows.Add(new JsonObject { ["facet"] = "s", ["range"] = labels[r], ["count"] = orders.Count(o => o.Scores.Any(s => s >= low && s < high)) });
            }

            // Total is single-valued (its path has no []): counted from the column.
            rows.Add(new JsonObject { ["facet"] = "t", ["range"] = "[-inf, 0)", ["count"] = orders.Count(o => o.Total < 0) });
            rows.Add(new JsonObject { ["facet"] = "t", ["range"] = "[0, 25.5)", ["count"] = orders.Count(o => o.Total >= 0 && o.Total < 25.5) });
            rows.Add(new JsonObject { ["facet"] = "t", ["range"] = "[25.5, inf)", ["count"] = orders.Count(o => o.Total >= 25.5) });

            return rows;
        }

        public static JsonArray StatusByCount(List<Order> orders)
        {
            var rows = new JsonArray();
            foreach (var group in orders.Where(o => o.Status != null).GroupBy(o => o.Status!).OrderByDescending(g => g.Count()).ThenBy(g => g.Key, StringComparer.Ordinal).Skip(1).Take(3))
            {
                rows.Add(new JsonObject { ["Status"] = group.Key, ["n"] = group.Count() });
            }

            return rows;
        }

        private static int FloorDiv(int value, int divisor) => (int)Math.Floor(value / (double)divisor);
    }
}
