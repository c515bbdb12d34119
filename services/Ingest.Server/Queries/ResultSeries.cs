using System.Buffers;
using System.Runtime.InteropServices;
using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>
/// One time series of a <see cref="ResultTable"/>: its name and its points in ascending time. The name is the group's
/// key values (<c>shipped</c>, <c>shipped acme</c>), followed by the aggregate's name when the query has several
/// (<c>shipped count()</c>), or the aggregate's name alone when there is no other key (<c>sum(Total)</c>).
/// </summary>
internal sealed record ResultSeries(string Name, List<(long Time, JsonElement? Value)> Points)
{
    /// <summary>Between the keys' JSON bytes in a row's series key: a byte UTF-8 never holds.</summary>
    private const byte Separator = 0xFF;

    /// <summary>
    /// Splits a time series table: one series per value column and per combination of the other keys, in order of
    /// first appearance. A row finds its series by its keys' JSON bytes, and its time is parsed once per distinct
    /// instant (rows come grouped by time): a dashboard panel's thousands of rows cost no string and no date parse each.
    /// </summary>
    public static IReadOnlyList<ResultSeries> From(ResultTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        if (!table.IsTimeSeries)
        {
            throw new InvalidOperationException("The results are not a time series.");
        }

        var columns = table.Columns;
        var keys = Enumerable.Range(0, columns.Count).Where(i => i != table.TimeColumn && !columns[i].IsValue).ToArray();
        var values = Enumerable.Range(0, columns.Count).Where(i => columns[i].IsValue).ToArray();
        var series = new List<ResultSeries>();
        var byName = new Dictionary<string, int>(StringComparer.Ordinal);
        var byKey = new Dictionary<byte[], int>(SeriesKeyComparer.Instance);
        var lookup = byKey.GetAlternateLookup<ReadOnlySpan<byte>>();
        var scratch = new byte[256];
        var rows = table.Rows;

        // First each row's series and time, then each series' points in a list of its exact size: a panel's series
        // grew through twice their points otherwise.
        var assigned = ArrayPool<int>.Shared.Rent(Math.Max(1, rows.Count * values.Length));
        var times = ArrayPool<long>.Shared.Rent(Math.Max(1, rows.Count));
        var counts = new List<int>();
        try
        {
            ReadOnlySpan<byte> lastInstant = default;
            long lastTime = 0;
            for (var r = 0; r < rows.Count; r++)
            {
                var row = rows[r];
                assigned.AsSpan(r * values.Length, values.Length).Fill(-1);
                if (row[table.TimeColumn] is not { ValueKind: JsonValueKind.String } instant)
                {
                    continue;
                }

                var raw = JsonMarshal.GetRawUtf8Value(instant);
                if (!raw.SequenceEqual(lastInstant))
                {
                    if (ResultValues.EpochMilliseconds(instant) is not { } parsed)
                    {
                        continue;
                    }

                    lastInstant = raw;
                    lastTime = parsed;
                }

                times[r] = lastTime;
                var length = 0;
                foreach (var k in keys)
                {
                    var bytes = row[k] is { } key ? JsonMarshal.GetRawUtf8Value(key) : default;
                    Append(ref scratch, ref length, bytes);
                }

                for (var v = 0; v < values.Length; v++)
                {
                    var at = length;
                    Append(ref scratch, ref length, [(byte)v, (byte)(v >> 8)]);
                    var seriesKey = scratch.AsSpan(0, length);
                    if (!lookup.TryGetValue(seriesKey, out var one))
                    {
                        one = Named(row, keys, values, v, columns, series, byName);
                        byKey.Add(seriesKey.ToArray(), one);
                        if (one == counts.Count)
                        {
                            counts.Add(0);
                        }
                    }

                    assigned[(r * values.Length) + v] = one;
                    counts[one]++;
                    length = at;
                }
            }

            for (var i = 0; i < series.Count; i++)
            {
                series[i].Points.Capacity = counts[i];
            }

            for (var r = 0; r < rows.Count; r++)
            {
                var row = rows[r];
                for (var v = 0; v < values.Length; v++)
                {
                    if (assigned[(r * values.Length) + v] is var one and >= 0)
                    {
                        series[one].Points.Add((times[r], row[values[v]]));
                    }
                }
            }
        }
        finally
        {
            ArrayPool<int>.Shared.Return(assigned);
            ArrayPool<long>.Shared.Return(times);
        }

        foreach (var one in series)
        {
            // Rows come grouped by the keys in group by order: a key before time() interleaves the series' points.
            if (!Ascending(one.Points))
            {
                one.Points.Sort(static (a, b) => a.Time.CompareTo(b.Time));
            }
        }

        return series;
    }

    /// <summary>The series (its index) a row's keys and value column name, made the first time the name is met (keys whose JSON differs may name one series: "5" and 5).</summary>
    private static int Named(ResultRow row, int[] keys, int[] values, int v, IReadOnlyList<ResultColumn> columns, List<ResultSeries> series, Dictionary<string, int> byName)
    {
        var group = string.Join(' ', keys.Select(k => ResultValues.Text(row[k])));
        var name = keys.Length == 0 ? columns[values[v]].Name : values.Length > 1 ? $"{group} {columns[values[v]].Name}" : group;
        if (!byName.TryGetValue(name, out var one))
        {
            one = series.Count;
            series.Add(new ResultSeries(name, []));
            byName.Add(name, one);
        }

        return one;
    }

    private static void Append(ref byte[] scratch, ref int length, ReadOnlySpan<byte> bytes)
    {
        if (length + bytes.Length + 1 > scratch.Length)
        {
            Array.Resize(ref scratch, Math.Max(scratch.Length * 2, length + bytes.Length + 1));
        }

        bytes.CopyTo(scratch.AsSpan(length));
        length += bytes.Length;
        scratch[length++] = Separator;
    }

    private static bool Ascending(List<(long Time, JsonElement? Value)> points)
    {
        for (var i = 1; i < points.Count; i++)
        {
            if (points[i].Time < points[i - 1].Time)
            {
                return false;
            }
        }

        return true;
    }

    private sealed class SeriesKeyComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
    {
        public static readonly SeriesKeyComparer Instance = new();

        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(byte[] obj) => GetHashCode((ReadOnlySpan<byte>)obj);

        public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<byte> alternate)
        {
            var hash = new HashCode();
            hash.AddBytes(alternate);
            return hash.ToHashCode();
        }

        public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
    }
}
