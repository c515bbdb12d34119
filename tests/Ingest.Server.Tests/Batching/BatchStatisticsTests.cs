using Ingest.Server.Batching;

namespace Ingest.Server.Tests.Batching;

public sealed class BatchStatisticsTests
{
    [Fact]
    public void Empty_statistics_report_zeroes()
    {
        var stats = new BatchStatistics();

        Assert.Equal(0, stats.Batches);
        Assert.Equal(0, stats.MinItems);
        Assert.Equal(0, stats.AverageItems);
        Assert.Equal(TimeSpan.Zero, stats.AverageFirstItemAge);
        Assert.Equal(0, stats.ItemsPercentile(99));
        Assert.Equal(TimeSpan.Zero, stats.FirstItemAgePercentile(99));
    }

    [Fact]
    public void Figures_summarize_the_recorded_batches()
    {
        var stats = new BatchStatistics();
        for (var i = 0; i < 90; i++)
        {
            stats.RecordBatch(BatchCloseReason.Delay, 10, 1_000, TimeSpan.FromMilliseconds(50));
        }

        for (var i = 0; i < 10; i++)
        {
            stats.RecordBatch(BatchCloseReason.Count, 1_000, 100_000, TimeSpan.FromMilliseconds(3));
        }

        Assert.Equal(100, stats.Batches);
        Assert.Equal(90, stats.ClosedBy(BatchCloseReason.Delay));
        Assert.Equal(10, stats.ClosedBy(BatchCloseReason.Count));
        Assert.Equal(90 * 10 + 10 * 1_000, stats.Items);
        Assert.Equal(90 * 1_000 + 10 * 100_000, stats.Bytes);
        Assert.Equal(10, stats.MinItems);
        Assert.Equal(1_000, stats.MaxItems);
        Assert.Equal(109.0, stats.AverageItems);
        Assert.Equal(TimeSpan.FromMilliseconds(50), stats.MaxFirstItemAge);
        Assert.Equal(TimeSpan.FromMilliseconds(45.3), stats.AverageFirstItemAge);

        // Power-of-two buckets: 10 lies in [8, 16), 1,000 in [512, 1024).
        Assert.Equal(15, stats.ItemsPercentile(50));
        Assert.Equal(15, stats.ItemsPercentile(90));
        Assert.Equal(1_000, stats.ItemsPercentile(91));
        var histogram = stats.ItemsHistogram();
        Assert.Equal(90, histogram[3]);
        Assert.Equal(10, histogram[9]);
        Assert.Equal(100, histogram.Sum());

        // 50 ms = 50,000 µs lies in [32,768, 65,536) µs, capped by the largest age seen.
        Assert.Equal(TimeSpan.FromMilliseconds(50), stats.FirstItemAgePercentile(99));
        Assert.Equal(TimeSpan.FromTicks(4_095 * TimeSpan.TicksPerMicrosecond), stats.FirstItemAgePercentile(10));
    }

    [Fact]
    public void Producer_waits_are_counted()
    {
        var stats = new BatchStatistics();
        stats.RecordProducerWait();
        stats.RecordProducerWait();

        Assert.Equal(2, stats.ProducerWaits);
    }
}
