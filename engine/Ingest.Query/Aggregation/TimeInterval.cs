using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// A <c>time()</c> bucket width: <c>&lt;count&gt;&lt;unit&gt;</c>, units <c>ms s m h d w M y</c>. Buckets are UTC and
/// numbered from an origin so that bucket 0 starts there and every bucket is the same number of units:
/// fixed units from 1970-01-01T00:00Z, weeks from Monday 1969-12-29 (so a week starts on Monday), months and years
/// from 1970-01 in calendar months (a month bucket holds whole months whatever their length; leap days included).
/// </summary>
internal readonly record struct TimeInterval(long Count, TimeUnit Unit)
{
    private static readonly long UnixEpochTicks = DateTime.UnixEpoch.Ticks;
    private static readonly long FirstMondayTicks = new DateTime(1969, 12, 29, 0, 0, 0, DateTimeKind.Utc).Ticks;

    /// <summary>Reads <c>5m</c>, <c>1M</c>, <c>250ms</c>; a clear error at <paramref name="position"/> otherwise.</summary>
    public static TimeInterval Parse(string text, SourcePosition position)
    {
        var digits = 0;
        while (digits < text.Length && char.IsAsciiDigit(text[digits]))
        {
            digits++;
        }

        var unit = text[digits..] switch
        {
            "ms" => TimeUnit.Millisecond,
            "s" => TimeUnit.Second,
            "m" => TimeUnit.Minute,
            "h" => TimeUnit.Hour,
            "d" => TimeUnit.Day,
            "w" => TimeUnit.Week,
            "M" => TimeUnit.Month,
            "y" => TimeUnit.Year,
            _ => (TimeUnit?)null,
        };

        if (digits == 0 || unit == null || !long.TryParse(text.AsSpan(0, digits), out var count) || count <= 0)
        {
            throw new QueryException(
                position,
                $"invalid time interval '{text}'; expected a positive integer and a unit (ms, s, m, h, d, w, M, y), like '5m' or '1M'");
        }

        var interval = new TimeInterval(count, unit.Value);
        var tooLong = unit switch
        {
            TimeUnit.Month => count > 12 * 10_000,
            TimeUnit.Year => count > 10_000,
            _ => count > DateTime.MaxValue.Ticks / interval.UnitTicks,
        };

        if (tooLong)
        {
            throw new QueryException(position, $"time interval '{text}' is longer than the whole calendar");
        }

        return interval;
    }

    /// <summary>The bucket number of a UTC instant (negative before the origin).</summary>
    public long BucketOf(long utcTicks)
    {
        switch (Unit)
        {
            case TimeUnit.Month:
                var date = new DateTime(utcTicks, DateTimeKind.Utc);
                return FloorDivide(((date.Year - 1970) * 12L) + date.Month - 1, Count);
            case TimeUnit.Year:
                return FloorDivide(new DateTime(utcTicks, DateTimeKind.Utc).Year - 1970L, Count);
            default:
                return FloorDivide(utcTicks - Origin, Count * UnitTicks);
        }
    }

    /// <summary>
    /// Whether every bucket is the same number of ticks (every unit but months and years), so that the buckets of a
    /// range can be counted from its first bucket's start (<see cref="BucketWidthTicks"/>).
    /// </summary>
    public bool IsFixedWidth => Unit is not (TimeUnit.Month or TimeUnit.Year);

    /// <summary>A fixed-width bucket's length in ticks.</summary>
    public long BucketWidthTicks => Count * UnitTicks;

    /// <summary>Where a fixed-width bucket starts, in ticks, unclamped (the first bucket may start before year 1).</summary>
    public long FixedBucketStart(long bucket) => Origin + (bucket * BucketWidthTicks);

    /// <summary>The UTC ticks where bucket <paramref name="bucket"/> starts (clamped to the calendar's first instant).</summary>
    public long StartOf(long bucket)
    {
        switch (Unit)
        {
            case TimeUnit.Month:
                var months = bucket * Count;
                var year = 1970 + FloorDivide(months, 12);
                return year < 1 ? 0 : new DateTime((int)year, (int)FloorRemainder(months, 12) + 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;
            case TimeUnit.Year:
                var first = 1970 + (bucket * Count);
                return first < 1 ? 0 : new DateTime((int)first, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;
            default:
                return Math.Max(0, Origin + (bucket * Count * UnitTicks));
        }
    }

    public override string ToString() => Count + Unit switch
    {
        TimeUnit.Millisecond => "ms",
        TimeUnit.Second => "s",
        TimeUnit.Minute => "m",
        TimeUnit.Hour => "h",
        TimeUnit.Day => "d",
        TimeUnit.Week => "w",
        TimeUnit.Month => "M",
        _ => "y",
    };

    private long Origin => Unit == TimeUnit.Week ? FirstMondayTicks : UnixEpochTicks;

    private long UnitTicks => Unit switch
    {
        TimeUnit.Millisecond => TimeSpan.TicksPerMillisecond,
        TimeUnit.Second => TimeSpan.TicksPerSecond,
        TimeUnit.Minute => TimeSpan.TicksPerMinute,
        TimeUnit.Hour => TimeSpan.TicksPerHour,
        TimeUnit.Day => TimeSpan.TicksPerDay,
        TimeUnit.Week => TimeSpan.TicksPerDay * 7,
        TimeUnit.Month => TimeSpan.TicksPerDay * 31,
        _ => TimeSpan.TicksPerDay * 366,
    };

    private static long FloorDivide(long value, long divisor)
    {
        var quotient = Math.DivRem(value, divisor, out var remainder);
        return remainder < 0 ? quotient - 1 : quotient;
    }

    private static long FloorRemainder(long value, long divisor)
    {
        var remainder = value % divisor;
        return remainder < 0 ? remainder + divisor : remainder;
    }
}
