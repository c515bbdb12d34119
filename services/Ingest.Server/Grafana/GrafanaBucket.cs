namespace Ingest.Server.Grafana;

/// <summary>
/// The <c>time()</c> bucket bound to <c>$interval</c>: Grafana's <c>intervalMs</c> rounded up to a whole width
/// (1s, 5s, 1m, 5m, 1h, 1d...), widened until the range holds at most <c>maxDataPoints</c> buckets. Grafana rounds its
/// interval down, so taking it as is could give more points than the panel asked for. Buckets are aligned to the
/// epoch, so a range may touch one more bucket than its length divided by the width: that one is counted.
/// </summary>
internal static class GrafanaBucket
{
    private const long Second = 1000;
    private const long Minute = 60 * Second;
    private const long Hour = 60 * Minute;
    private const long Day = 24 * Hour;

    private static readonly (long Ms, string Text)[] Widths =
    [
        (1, "1ms"), (10, "10ms"), (50, "50ms"), (100, "100ms"), (250, "250ms"), (500, "500ms"),
        (Second, "1s"), (2 * Second, "2s"), (5 * Second, "5s"), (10 * Second, "10s"), (15 * Second, "15s"), (30 * Second, "30s"),
        (Minute, "1m"), (2 * Minute, "2m"), (5 * Minute, "5m"), (10 * Minute, "10m"), (15 * Minute, "15m"), (30 * Minute, "30m"),
        (Hour, "1h"), (2 * Hour, "2h"), (3 * Hour, "3h"), (6 * Hour, "6h"), (12 * Hour, "12h"),
        (Day, "1d"), (2 * Day, "2d"), (7 * Day, "7d"), (14 * Day, "14d"), (30 * Day, "30d"), (90 * Day, "90d"), (365 * Day, "365d"),
    ];

    /// <summary>Grafana's default when a request names no maximum.</summary>
    public const int DefaultMaxDataPoints = 1000;

    public static (long Ms, string Text) Choose(DateTimeOffset from, DateTimeOffset to, long intervalMs, int maxDataPoints)
    {
        var points = maxDataPoints > 0 ? maxDataPoints : DefaultMaxDataPoints;
        var rangeMs = Math.Max(0, (to - from).Ticks / TimeSpan.TicksPerMillisecond);
        foreach (var (ms, text) in Widths)
        {
            if (ms >= intervalMs && BucketsTouched(rangeMs, ms) <= points)
            {
                return (ms, text);
            }
        }

        // Longer than every width above: whole days, enough of them.
        var days = Math.Max(1, (rangeMs / Math.Max(1, points - 2) / Day) + 1);
        days = Math.Max(days, (intervalMs + Day - 1) / Day);
        return (days * Day, $"{days}d");
    }

    /// <summary>At most this many epoch-aligned buckets of <paramref name="widthMs"/> meet a range of <paramref name="rangeMs"/>.</summary>
    public static long BucketsTouched(long rangeMs, long widthMs) => ((rangeMs + widthMs - 1) / widthMs) + 1;
}
