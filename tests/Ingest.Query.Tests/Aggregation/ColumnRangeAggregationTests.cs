using System.Globalization;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>
/// A range whose field the aggregation reads (a <c>time()</c> histogram over an OrderedAt range, a sum over a Total
/// range) walks the field's column and hands the aggregation each match's value; the rows must be those of the same
/// aggregation over the same documents with the column read as usual. Wide ranges pass the column's threshold (over
/// 1,024 terms, and a quarter of the entries) and hand over the column's values, narrow ones hand over their terms
/// (sorted by entry); documents miss the fields or hold the wrong type.
/// </summary>
public sealed class ColumnRangeAggregationTests
{
    [Fact]
    public async Task An_aggregation_over_a_column_walked_range_equals_the_same_aggregation_over_its_matches()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        await using var host = await AggregationHost.OpenAsync();
        var start = new DateTime(2023, 11, 1, 0, 0, 0, DateTimeKind.Utc);
        var totals = new List<double?>();
        var times = new List<DateTime?>();
        var documents = new List<string>();
        for (var i = 0; i < 3_000; i++)
        {
            var properties = new List<string> { $"\"Status\":\"{(char)('a' + random.Next(4))}\"" };
            double? total = null;
            switch (random.Next(8))
            {
                case 0:
                    break;
                case 1:
                    properties.Add("\"Total\":\"12\""); // wrong type: no value
                    break;
                default:
                    total = random.Next(-100_000, 1_000_000) / 100.0;
                    properties.Add("\"Total\":" + total.Value.ToString(CultureInfo.InvariantCulture));
                    break;
            }

            DateTime? time = null;
            switch (random.Next(8))
            {
                case 0:
                    break;
                case 1:
                    properties.Add("\"OrderedAt\":5");
                    break;
                default:
                    time = start.AddSeconds(random.Next(0, 200 * 86_400));
                    properties.Add($"\"OrderedAt\":\"{time.Value:yyyy-MM-dd'T'HH:mm:ss'Z'}\"");
                    break;
            }

            totals.Add(total);
            times.Add(time);
            documents.Add("{" + string.Join(",", properties) + "}");
        }

        await host.WriteAsync([.. documents]);
        const string TimeAggregation = "group by time(OrderedAt, '1d') select count(), sum(Total), max(Total), min(OrderedAt), count(Total)";
        const string TotalAggregation = "group by time(OrderedAt, '7h'), Status select sum(Total), avg(Total), min(Total)";
        for (var round = 0; round < 12; round++)
        {
            var context = $"seed {seed} (INGEST_TEST_SEED), round {round}";

            // Even rounds: most of the documents (the column is walked); odd rounds: a few days (the terms answer).
            var days = round % 2 == 0 ? random.Next(140, 200) : random.Next(1, 10);
            var from = start.AddSeconds(random.Next(0, (200 - days) * 86_400));
            var to = from.AddDays(days);
            var inTime = Enumerable.Range(0, times.Count).Where(i => times[i] >= from && times[i] <= to).ToHashSet();
            var timeParameters = new { from = from.ToString("O", CultureInfo.InvariantCulture), to = to.ToString("O", CultureInfo.InvariantCulture) };
            Assert.True(
                host.Run("from Orders " + TimeAggregation, inTime).ToJsonString()
                    == (await host.QueryAsync("from index 'Orders/ForAggregation' where OrderedAt between $from and $to " + TimeAggregation, timeParameters)).ToJsonString(),
                context);

            var low = random.Next(-1_000, round % 2 == 0 ? 1_000 : 9_900);
            var high = round % 2 == 0 ? low + random.Next(7_000, 11_000) : low + random.Next(1, 50);
            var inTotal = Enumerable.Range(0, totals.Count).Where(i => totals[i] >= low && totals[i] <= high).ToHashSet();
            Assert.True(
                host.Run("from Orders " + TotalAggregation, inTotal).ToJsonString()
                    == (await host.QueryAsync($"from index 'Orders/ForAggregation' where Total between {low} and {high} " + TotalAggregation)).ToJsonString(),
                context);

            var after = Enumerable.Range(0, times.Count).Where(i => times[i] >= from).ToHashSet();
            Assert.True(
                host.Run("from Orders group by Status select max(OrderedAt), count()", after).ToJsonString()
                    == (await host.QueryAsync("from index 'Orders/ForAggregation' where OrderedAt >= $from group by Status select max(OrderedAt), count()", timeParameters)).ToJsonString(),
                context);
        }
    }
}
