using System.Buffers;
using System.Text.Json;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// Per group slot: its document count, its key combination, and per aggregate a value count with a sum, minimum or
/// maximum (doubles for numbers, ticks for datetimes, which a double would round). Pooled arrays grown by doubling.
/// </summary>
internal sealed class Accumulators : IDisposable
{
    private readonly IReadOnlyList<BoundAggregate> _aggregates;
    private readonly long[][] _values;
    private readonly double[][] _numbers;
    private readonly long[][] _ticks;
    private int _capacity;

    public Accumulators(IReadOnlyList<BoundAggregate> aggregates)
    {
        _aggregates = aggregates;
        _values = new long[aggregates.Count][];
        _numbers = new double[aggregates.Count][];
        _ticks = new long[aggregates.Count][];
        for (var a = 0; a < aggregates.Count; a++)
        {
            _values[a] = [];
            _numbers[a] = [];
            _ticks[a] = [];
        }
    }

    /// <summary>Documents per slot.</summary>
    public long[] Count { get; private set; } = [];

    /// <summary>The key combination (mixed-radix group number) per slot.</summary>
    public long[] Combination { get; private set; } = [];

    /// <summary>Slots handed out.</summary>
    public int Used { get; set; }

    public void EnsureSlots(int slots)
    {
        if (slots <= _capacity)
        {
            return;
        }

        var capacity = Math.Max(slots, Math.Max(16, _capacity * 2));
        Count = Grow(Count, capacity);
        Combination = Grow(Combination, capacity);
        for (var a = 0; a < _aggregates.Count; a++)
        {
            _values[a] = Grow(_values[a], capacity);
            if (_aggregates[a].IsDateTime)
            {
                _ticks[a] = Grow(_ticks[a], capacity);
            }
            else if (_aggregates[a].ReadsColumn)
            {
                _numbers[a] = Grow(_numbers[a], capacity);
            }
        }

        _capacity = capacity;
    }

    /// <summary>Counts each match in its slot (-1: none) and each further (slot &lt;&lt; 32 | match) pair.</summary>
    public void AddCounts(ReadOnlySpan<int> slots, ReadOnlySpan<long> extras)
    {
        var count = Count;
        foreach (var slot in slots)
        {
            if (slot >= 0)
            {
                count[slot]++;
            }
        }

        foreach (var extra in extras)
        {
            count[(int)(extra >> 32)]++;
        }
    }

    /// <summary>Adds each match's column number (NaN: none) to aggregate <paramref name="a"/> of its slots.</summary>
    public void AddNumbers(int a, ReadOnlySpan<int> slots, ReadOnlySpan<long> extras, double[] values)
    {
        var function = _aggregates[a].Function;
        var seen = _values[a];
        var accumulated = _numbers[a];
        for (var p = 0; p < slots.Length; p++)
        {
            var slot = slots[p];
            if (slot >= 0 && !double.IsNaN(values[p]))
            {
                AddNumber(function, seen, accumulated, slot, values[p]);
            }
        }

        foreach (var extra in extras)
        {
            var value = values[(int)extra];
            if (!double.IsNaN(value))
            {
                AddNumber(function, seen, accumulated, (int)(extra >> 32), value);
            }
        }
    }

    /// <summary>Adds each match's column datetime (-1: none) to aggregate <paramref name="a"/> of its slots.</summary>
    public void AddTicks(int a, ReadOnlySpan<int> slots, ReadOnlySpan<long> extras, long[] ticks)
    {
        var function = _aggregates[a].Function;
        var seen = _values[a];
        var accumulated = _ticks[a];
        for (var p = 0; p < slots.Length; p++)
        {
            var slot = slots[p];
            if (slot >= 0 && ticks[p] >= 0)
            {
                AddTicks(function, seen, accumulated, slot, ticks[p]);
            }
        }

        foreach (var extra in extras)
        {
            var value = ticks[(int)extra];
            if (value >= 0)
            {
                AddTicks(function, seen, accumulated, (int)(extra >> 32), value);
            }
        }
    }

    /// <summary>Counts, for <c>count(F)</c>, the matches where the field has a value (<paramref name="first"/> term ordinal >= 0).</summary>
    public void AddPresence(int a, ReadOnlySpan<int> slots, ReadOnlySpan<long> extras, int[] first)
    {
        var seen = _values[a];
        for (var p = 0; p < slots.Length; p++)
        {
            if (slots[p] >= 0 && first[p] >= 0)
            {
                seen[slots[p]]++;
            }
        }

        foreach (var extra in extras)
        {
            if (first[(int)extra] >= 0)
            {
                seen[(int)(extra >> 32)]++;
            }
        }
    }

    /// <summary>Orders two slots by aggregate <paramref name="a"/>, a slot without a value after every slot with one.</summary>
    public int Compare(int a, int x, int y, bool descending)
    {
        var aggregate = _aggregates[a];
        var hasX = aggregate.Field < 0 || aggregate.Function is AggregateFunction.Count or AggregateFunction.Sum || _values[a][x] > 0;
        var hasY = aggregate.Field < 0 || aggregate.Function is AggregateFunction.Count or AggregateFunction.Sum || _values[a][y] > 0;
        if (!hasX || !hasY)
        {
            return hasX == hasY ? 0 : hasX ? -1 : 1;
        }

        int order;
        if (aggregate.Field < 0)
        {
            order = Count[x].CompareTo(Count[y]);
        }
        else if (aggregate.Function == AggregateFunction.Count)
        {
            order = _values[a][x].CompareTo(_values[a][y]);
        }
        else if (aggregate.IsDateTime)
        {
            order = _ticks[a][x].CompareTo(_ticks[a][y]);
        }
        else
        {
            order = Number(a, x).CompareTo(Number(a, y));
        }

        return descending ? -order : order;
    }

    public void Write(Utf8JsonWriter writer, int a, int slot)
    {
        var aggregate = _aggregates[a];
        if (aggregate.Field < 0)
        {
            writer.WriteNumberValue(Count[slot]);
        }
        else if (aggregate.Function == AggregateFunction.Count)
        {
            writer.WriteNumberValue(_values[a][slot]);
        }
        else if (_values[a][slot] == 0 && aggregate.Function != AggregateFunction.Sum)
        {
            writer.WriteNullValue();
        }
        else if (aggregate.IsDateTime)
        {
            writer.WriteStringValue(new DateTime(_ticks[a][slot], DateTimeKind.Utc));
        }
        else
        {
            AggregationJson.WriteNumber(writer, Number(a, slot));
        }
    }

    public void Dispose()
    {
        Count = Return(Count);
        Combination = Return(Combination);
        for (var a = 0; a < _aggregates.Count; a++)
        {
            _values[a] = Return(_values[a]);
            _numbers[a] = Return(_numbers[a]);
            _ticks[a] = Return(_ticks[a]);
        }

        _capacity = 0;
    }

    private static void AddNumber(AggregateFunction function, long[] seen, double[] accumulated, int slot, double value)
    {
        var first = seen[slot]++ == 0;
        switch (function)
        {
            case AggregateFunction.Sum or AggregateFunction.Avg:
                accumulated[slot] += value;
                break;
            case AggregateFunction.Min when first || value < accumulated[slot]:
            case AggregateFunction.Max when first || value > accumulated[slot]:
                accumulated[slot] = value;
                break;
        }
    }

    private static void AddTicks(AggregateFunction function, long[] seen, long[] accumulated, int slot, long ticks)
    {
        var first = seen[slot]++ == 0;
        switch (function)
        {
            case AggregateFunction.Min when first || ticks < accumulated[slot]:
            case AggregateFunction.Max when first || ticks > accumulated[slot]:
                accumulated[slot] = ticks;
                break;
        }
    }

    private double Number(int a, int slot) => _aggregates[a].Function == AggregateFunction.Avg
        ? _numbers[a][slot] / _values[a][slot]
        : _numbers[a][slot];

    private static T[] Grow<T>(T[] array, int capacity)
    {
        var grown = ArrayPool<T>.Shared.Rent(capacity);
        var kept = Math.Min(array.Length, grown.Length);
        array.AsSpan(0, kept).CopyTo(grown);
        grown.AsSpan(kept).Clear();
        Return(array);
        return grown;
    }

    private static T[] Return<T>(T[] array)
    {
        if (array.Length > 0)
        {
            ArrayPool<T>.Shared.Return(array);
        }

        return [];
    }
}
