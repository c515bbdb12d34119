namespace Ingest.Indexing.Reduce;

/// <summary>
/// A fixed-width UTC time bucket of a group key (<c>250ms</c>, <c>5m</c>, <c>1h</c>, <c>1d</c>, <c>1w</c>): buckets are
/// numbered from 1970-01-01T00:00Z, weeks from Monday 1969-12-29, as the query language's <c>time()</c> numbers
/// them, so a bucket here is the bucket a query-time <c>time(field, '1h')</c> gives. Calendar units (months, years)
/// are not fixed widths and are not offered for stored groups.
/// </summary>
internal readonly record struct TimeBucket(long WidthTicks, long OriginTicks)
{
    private static readonly long UnixEpochTicks = DateTime.UnixEpoch.Ticks;
    private static readonly long FirstMondayTicks = new DateTime(1969, 12, 29, 0, 0, 0, DateTimeKind.Utc).Ticks;

    public const string Expected = "a positive integer and a unit (ms, s, m, h, d, w), like '5m' or '1h'";

    public static bool TryParse(string? text, out TimeBucket bucket)
    {
        bucket = default;
        if (string.IsNullOrEmpty(text))
        {
            return false;
        }

        var digits = 0;
        while (digits < text.Length && char.IsAsciiDigit(text[digits]))
        {
            digits++;
        }

        long? unit = text[digits..] switch
        {
            "ms" => TimeSpan.TicksPerMillisecond,
            "s" => TimeSpan.TicksPerSecond,
            "m" => TimeSpan.TicksPerMinute,
            "h" => TimeSpan.TicksPerHour,
            "d" => TimeSpan.TicksPerDay,
            "w" => TimeSpan.TicksPerDay * 7,
            _ => null,
        };

        if (digits == 0 || unit == null || !long.TryParse(text.AsSpan(0, digits), out var count) || count <= 0
            || count > DateTime.MaxValue.Ticks / unit.Value)
        {
            return false;
        }

        bucket = new TimeBucket(count * unit.Value, text.EndsWith('w') ? FirstMondayTicks : UnixEpochTicks);
        return true;
    }

    /// <summary>The start of the bucket holding <paramref name="ticks"/> (UTC), never before year 1.</summary>
    public long Start(long ticks)
    {
        var offset = ticks - OriginTicks;
        var index = offset >= 0 ? offset / WidthTicks : ((offset + 1) / WidthTicks) - 1;
        return Math.Max(0, OriginTicks + (index * WidthTicks));
    }
}
