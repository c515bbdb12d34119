using System.Buffers;
using System.Globalization;
using System.Text.Json;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>Aggregations allocate per query (pooled arrays aside), never per matched document.</summary>
public sealed class AggregationAllocationTests
{
    [Fact]
    public async Task A_time_histogram_allocates_the_same_for_ten_times_the_matches()
    {
        const int documents = 20_000;
        await using var host = await AggregationHost.OpenAsync();
        var start = new DateTime(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc);
        var orders = new string[documents];
        for (var i = 0; i < documents; i++)
        {
            // Two orders a minute, over a week: the first tenth covers a few hundred 5-minute buckets, all of them ten times more.
            var at = start.AddSeconds(i * 30).ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);
            orders[i] = $$"""{"Status":"s{{i % 5}}","Total":{{i % 997}},"OrderedAt":"{{at}}"}""";
        }

        await host.WriteAsync(orders);
        var aggregation = AggregationHost.Bind("from Orders group by time(OrderedAt, '5m') select count(), sum(Total), max(Total)");
        using var reader = host.Indexes.BeginRead(AggregationHost.Orders.Name)!;
        var all = new long[documents];
        for (var i = 0; i < documents; i++)
        {
            Assert.True(reader.TryGetEntry(host.Ids[i], out all[i]));
        }

        Array.Sort(all);
        var buffer = new ArrayBufferWriter<byte>(8 << 20);
        using var writer = new Utf8JsonWriter(buffer);
        long Run(ReadOnlySpan<long> matches)
        {
            buffer.ResetWrittenCount();
            writer.Reset(buffer);
            writer.WriteStartArray();
            var groups = aggregation.Write(reader, matches, writer, CancellationToken.None);
            writer.WriteEndArray();
            writer.Flush();
            return groups;
        }

        Assert.Equal(documents / 10, Run(all));
        var few = ThreadAllocations.Measure(() => Run(all.AsSpan(0, documents / 10)));
        var many = ThreadAllocations.Measure(() => Run(all));

        Assert.True(many - few < documents / 10, $"{few:N0} bytes for {documents / 10:N0} matches, {many:N0} bytes for {documents:N0}: allocation grows with the matches");
    }
}
