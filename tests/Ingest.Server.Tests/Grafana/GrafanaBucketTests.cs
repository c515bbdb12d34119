using Ingest.Server.Grafana;

namespace Ingest.Server.Tests.Grafana;

/// <summary>The <c>$interval</c> bucket: Grafana's interval rounded up to a whole width, widened to at most maxDataPoints buckets.</summary>
public sealed class GrafanaBucketTests
{
    private static readonly DateTimeOffset Start = new(2026, 11, 1, 0, 0, 0, TimeSpan.Zero);

    [Theory]
    [InlineData(120, 60_000, 1000, "1m")] // 121 buckets fit
    [InlineData(120, 60_000, 30, "5m")] // 1m and 2m give more than 30
    [InlineData(120, 45_000, 1000, "1m")] // rounded up to a whole width
    [InlineData(10_080, 600_000, 1200, "10m")] // 7 days
    [InlineData(10_080, 600_000, 100, "2h")] // 7 days in at most 100 buckets
    [InlineData(60, 0, 0, "5s")] // no interval or maximum: Grafana's default of 1000 points
    public void The_bucket_is_the_smallest_whole_width_not_below_the_interval_within_max_data_points(int minutes, long intervalMs, int maxDataPoints, string expected)
    {
        var (ms, text) = GrafanaBucket.Choose(Start, Start.AddMinutes(minutes), intervalMs, maxDataPoints);

        Assert.Equal(expected, text);
        Assert.True(GrafanaBucket.BucketsTouched((long)minutes * 60_000, ms) <= (maxDataPoints > 0 ? maxDataPoints : 1000));
    }

    [Fact]
    public void A_range_longer_than_every_width_gets_enough_whole_days()
    {
        var (ms, text) = GrafanaBucket.Choose(Start.AddYears(-100), Start, 60_000, 50);

        Assert.EndsWith("d", text, StringComparison.Ordinal);
        Assert.True(GrafanaBucket.BucketsTouched((long)(Start - Start.AddYears(-100)).TotalMilliseconds, ms) <= 50);
    }
}
