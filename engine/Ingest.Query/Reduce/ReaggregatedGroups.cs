using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// The query's groups as <see cref="ReaggregatedQuery"/> folds a map-reduce index's groups and the edges' rows into
/// them: per group its keys, and per aggregate its count of values (documents for count()), its sum and its least or
/// greatest value; per facet a count per value. A group is found by its keys' codes, without a string or a boxed value
/// per group read (a dashboard panel reads some ten thousand groups): a time key's code is its query bucket's start in
/// ticks, a keyword's the ordinal of its term bytes (<see cref="TermOrdinals"/>), a bool's 0 or 1. Strings are decoded
/// once per distinct term, when rows are written. Rows are written as query-time aggregation writes them: ordered by
/// the query's order by (values that may be missing, avg/min/max of no value, last both ways), then by keys ascending
/// (strings in UTF-8 byte order, the index's term order); facet values by descending count, then value.
/// The slot arrays are rented and returned on dispose: a panel's 5,000 groups grew them through some 600 KiB of
/// arrays per query. Over 300 lines: folding (from groups and from edge rows), ordering and writing share one slot
/// layout, kept in one place.
/// </summary>
internal sealed class ReaggregatedGroups : IDisposable
{
    /// <summary>The code of a missing key (an edge row's null): before every value, as query-time orders it.</summary>
    private const long NullCode = long.MinValue;

    private readonly ReaggregationPlan _plan;
    private readonly AggregationQuery _query;
    private readonly int _aggregateCount;
    private readonly long[] _scratch;
    private readonly int _keyCount;

    // Slots by their keys' codes: open addressing over _table (slot + 1, 0 empty), the codes flat in _keys (slot * _keyCount + k).
    private int[] _table;
    private long[] _keys;
    private int _slotCount;

    // Per key (per facet for a facet query): what its code is, and a keyword's term ordinals.
    private readonly KeyKind[] _kinds;
    private readonly TimeInterval[] _intervals;
    private readonly TermOrdinals?[] _terms;

    // Per slot, per aggregate (slot * _aggregateCount + a).
    private long[] _counts;
    private double[] _sums;
    private object?[]? _extremes;

    // Per facet, per value code (a keyword's ordinal, a bool's 0 or 1).
    private readonly long[][] _facetCounts;

    public ReaggregatedGroups(ReaggregationPlan plan)
    {
        _plan = plan;
        _query = plan.Aggregation;
        _aggregateCount = _query.Aggregates.Count;
        var keyCount = _query.IsFacets ? _query.Facets.Count : _query.Keys.Count;
        _kinds = new KeyKind[keyCount];
        _intervals = new TimeInterval[keyCount];
        _terms = new TermOrdinals?[keyCount];
        for (var k = 0; k < keyCount; k++)
        {
            var (type, interval) = _query.IsFacets ? (_query.Facets[k].Type, null) : (_query.Keys[k].Type, _query.Keys[k].Interval);
            _kinds[k] = interval is not null ? KeyKind.Time : type == IndexFieldType.Bool ? KeyKind.Bool : KeyKind.Keyword;
            _intervals[k] = interval ?? default;
            _terms[k] = _kinds[k] == KeyKind.Keyword ? new TermOrdinals() : null;
        }

        // Sized for the query's time buckets in the range (a panel's thousands of groups), so they seldom grow.
        var expected = ExpectedSlots(plan);
        _table = Rent<int>((int)BitOperations.RoundUpToPowerOf2((uint)(expected * 2)), exact: true);
        _keys = Rent<long>(expected * Math.Max(1, keyCount));
        _counts = Rent<long>(expected * Math.Max(1, _aggregateCount));
        _sums = Rent<double>(_counts.Length);
        _facetCounts = new long[_query.Facets.Count][];
        for (var f = 0; f < _facetCounts.Length; f++)
        {
            _facetCounts[f] = new long[16];
        }

        foreach (var aggregate in _query.Aggregates)
        {
            if (aggregate.Field >= 0 && aggregate.Function is AggregateFunction.Min or AggregateFunction.Max)
            {
                _extremes ??= Rent<object?>(_counts.Length);
            }
        }

        _keyCount = _query.IsFacets ? 0 : keyCount;
        _scratch = new long[_keyCount];
        if (!_query.IsFacets && _query.Keys.Count == 0)
        {
            Slot(); // without keys there is one row, documents or not
        }
    }

    private enum KeyKind
    {
        Time,
        Keyword,
        Bool,
    }

    /// <summary>Returns the rented slot arrays.</summary>
    public void Dispose()
    {
        Return(ref _table);
        Return(ref _keys);
        Return(ref _counts);
        Return(ref _sums);
        if (_extremes != null)
        {
            ArrayPool<object?>.Shared.Return(_extremes, clearArray: true);
            _extremes = null;
        }
    }

    /// <summary>Folds the cursor's current group in.</summary>
    public void Add(GroupCursor cursor)
    {
        if (_query.IsFacets)
        {
            for (var f = 0; f < _facetCounts.Length; f++)
            {
                if (cursor.TryGetKeyTerm(_plan.KeySources[f], out var term))
                {
                    AddFacet(f, TermCode(f, term), cursor.DocumentCount);
                }
            }

            return;
        }

        for (var k = 0; k < _scratch.Length; k++)
        {
            var source = _plan.KeySources[k];
            if (_kinds[k] == KeyKind.Time)
            {
                if (!cursor.TryGetKeyTicks(source, out var ticks))
                {
                    return; // query-time aggregation puts a document without a key's value in no group
                }

                _scratch[k] = _intervals[k].StartOf(_intervals[k].BucketOf(ticks));
            }
            else if (cursor.TryGetKeyTerm(source, out var term))
            {
                _scratch[k] = TermCode(k, term);
            }
            else
            {
                return;
            }
        }

        var at = Slot() * _aggregateCount;
        for (var a = 0; a < _aggregateCount; a++)
        {
            var aggregate = _query.Aggregates[a];
            var source = _plan.AggregateSources[a];
            if (aggregate.Field < 0)
            {
                _counts[at + a] += cursor.DocumentCount;
                continue;
            }

            var count = cursor.GetValueCount(source);
            _counts[at + a] += count;
            if (aggregate.Function is AggregateFunction.Sum or AggregateFunction.Avg)
            {
                _sums[at + a] += cursor.GetSum(source);
            }
            else if (aggregate.Function is AggregateFunction.Min or AggregateFunction.Max && count > 0)
            {
                Extreme(at + a, a, cursor.GetAggregate(source));
            }
        }
    }

    /// <summary>Folds in one row of an edge's query-time aggregation (<paramref name="edge"/> bound it; <paramref name="facet"/>: which facet a facet query's edge counted).</summary>
    public void AddEdgeRow(JsonElement row, AggregationQuery edge, int facet)
    {
        var c = 0;
        long facetValue = NullCode;
        var values = new List<(int Column, JsonElement Value)>();
        foreach (var property in row.EnumerateObject())
        {
            var source = edge.ColumnSources[c];
            if (source >= 0)
            {
                var code = EdgeCode(_query.IsFacets ? facet : source, property.Value);
                if (_query.IsFacets)
                {
                    facetValue = code;
                }
                else
                {
                    _scratch[source] = code;
                }
            }
            else
            {
                values.Add((c, property.Value));
            }

            c++;
        }

        if (_query.IsFacets)
        {
            var facetCount = values[0].Value.GetInt64();
            if (facetValue != NullCode && facetCount > 0)
            {
                AddFacet(facet, facetValue, facetCount);
            }

            return;
        }

        var slot = Slot();
        foreach (var (column, value) in values)
        {
            var name = edge.Columns[column].Name;
            var a = int.Parse(name.AsSpan(3), System.Globalization.CultureInfo.InvariantCulture);
            var at = (slot * _aggregateCount) + a;
            if (name[2] == 'c')
            {
                _counts[at] += value.GetInt64();
            }
            else if (value.ValueKind != JsonValueKind.Null)
            {
                if (_query.Aggregates[a].Function is AggregateFunction.Sum or AggregateFunction.Avg)
                {
                    _sums[at] += value.GetDouble();
                }
                else
                {
                    Extreme(at, a, value.ValueKind == JsonValueKind.String ? value.GetDateTime().ToUniversalTime() : value.GetDouble());
                }
            }
        }
    }

    /// <summary>Writes the groups after offset, at most limit; returns the groups and the rows written.</summary>
    public (long Total, long Written) WriteRows(Utf8JsonWriter writer)
    {
        var rented = ArrayPool<int>.Shared.Rent(Math.Max(1, _slotCount));
        var rows = rented.AsSpan(0, _slotCount);
        var sorted = true;
        for (var i = 0; i < rows.Length; i++)
        {
            rows[i] = i;
            sorted = sorted && (i == 0 || Compare(i - 1, i) <= 0);
        }

        // Groups are met in the index's key order, which is often the query's (time buckets, then a key): then no sort.
        if (!sorted)
        {
            rows.Sort(Compare);
        }

        var names = new JsonEncodedText[_query.Columns.Count];
        for (var c = 0; c < names.Length; c++)
        {
            names[c] = JsonEncodedText.Encode(_query.Columns[c].Name);
        }

        var end = Math.Min(rows.Length, _query.Offset + Math.Min(_query.Limit, int.MaxValue));
        long written = 0;
        for (var r = _query.Offset; r < end; r++)
        {
            var slot = rows[(int)r];
            writer.WriteStartObject();
            for (var c = 0; c < names.Length; c++)
            {
                writer.WritePropertyName(names[c]);
                var source = _query.ColumnSources[c];
                if (source >= 0)
                {
                    WriteKey(writer, source, _keys[(slot * _keyCount) + source]);
                }
                else
                {
                    WriteAggregate(writer, -1 - source, slot);
                }
            }

            writer.WriteEndObject();
            written++;
        }

        ArrayPool<int>.Shared.Return(rented);
        return (rows.Length, written);
    }

    /// <summary>Writes every facet's values (<c>{"facet", "value", "count"}</c>), by descending count, then value.</summary>
    public (long Total, long Written) WriteFacets(Utf8JsonWriter writer)
    {
        long rows = 0;
        var name = JsonEncodedText.Encode("facet");
        for (var f = 0; f < _facetCounts.Length; f++)
        {
            var counts = _facetCounts[f];
            var values = new List<int>();
            for (var code = 0; code < counts.Length; code++)
            {
                if (counts[code] > 0)
                {
                    values.Add(code);
                }
            }

            values.Sort((x, y) => counts[x] != counts[y] ? counts[y].CompareTo(counts[x]) : CompareKey(f, x, y));
            foreach (var code in values)
            {
                writer.WriteStartObject();
                writer.WriteString(name, _query.Facets[f].Name);
                writer.WritePropertyName("value");
                WriteKey(writer, f, code);
                writer.WriteNumber("count", counts[code]);
                writer.WriteEndObject();
                rows++;
            }
        }

        return (rows, rows);
    }

    /// <summary>At least the query's time buckets in a bounded range (a key's groups come on top), between 64 and 65,536.</summary>
    private static int ExpectedSlots(ReaggregationPlan plan)
    {
        long expected = 64;
        if (plan.Low is { } low && plan.High is { } high && !plan.Aggregation.IsFacets)
        {
            foreach (var key in plan.Aggregation.Keys)
            {
                if (key.Interval is { } interval)
                {
                    expected = Math.Max(expected, interval.BucketOf(high) - interval.BucketOf(low) + 1);
                }
            }
        }

        return (int)Math.Min(expected, 1 << 16);
    }

    private long TermCode(int k, ReadOnlySpan<byte> term) =>
        _kinds[k] == KeyKind.Bool ? (term.Length == 1 && term[0] != 0 ? 1 : 0) : _terms[k]!.Ordinal(term);

    /// <summary>The code of key (or facet) <paramref name="k"/>'s value as an edge row wrote it.</summary>
    private long EdgeCode(int k, JsonElement value) => value.ValueKind switch
    {
        JsonValueKind.Null => NullCode,
        _ when _kinds[k] == KeyKind.Time => _intervals[k].StartOf(_intervals[k].BucketOf(value.GetDateTime().ToUniversalTime().Ticks)),
        JsonValueKind.True or JsonValueKind.False when _kinds[k] == KeyKind.Bool => value.GetBoolean() ? 1 : 0,
        _ => _terms[k]!.Ordinal(value.GetString()!),
    };

    private void AddFacet(int f, long code, long count)
    {
        ref var counts = ref _facetCounts[f];
        if (code >= counts.Length)
        {
            Array.Resize(ref counts, Math.Max(counts.Length * 2, (int)code + 1));
        }

        counts[code] += count;
    }

    /// <summary>The slot of the keys in _scratch, made the first time they are met.</summary>
    private int Slot()
    {
        var mask = _table.Length - 1;
        var hash = Hash(_scratch);
        for (var i = hash & mask; ; i = (i + 1) & mask)
        {
            var found = _table[i] - 1;
            if (found < 0)
            {
                break;
            }

            if (_scratch.AsSpan().SequenceEqual(_keys.AsSpan(found * _keyCount, _keyCount)))
            {
                return found;
            }
        }

        var slot = _slotCount++;
        if ((slot + 1) * _keyCount > _keys.Length)
        {
            Grow(ref _keys, Math.Max(_keys.Length * 2, (slot + 1) * _keyCount));
        }

        _scratch.CopyTo(_keys.AsSpan(slot * _keyCount));
        var needed = (slot + 1) * _aggregateCount;
        if (needed > _counts.Length)
        {
            var size = Math.Max(_counts.Length * 2, needed);
            Grow(ref _counts, size);
            Grow(ref _sums, size);
            if (_extremes != null)
            {
                Grow(ref _extremes, size);
            }
        }

        if (_slotCount * 2 > _table.Length)
        {
            Rehash(); // at most half full: probes stay short
        }
        else
        {
            Place(_table, hash, slot);
        }

        return slot;
    }

    private void Rehash()
    {
        var table = Rent<int>(_table.Length * 2, exact: true);
        for (var slot = 0; slot < _slotCount; slot++)
        {
            Place(table, Hash(_keys.AsSpan(slot * _keyCount, _keyCount)), slot);
        }

        Return(ref _table);
        _table = table;
    }

    /// <summary>
    /// A cleared array of at least <paramref name="length"/> from the shared pool; <paramref name="exact"/>: the hash
    /// table's, whose length, a power of two, must be exactly the one asked for (its mask is length - 1).
    /// </summary>
    private static T[] Rent<T>(int length, bool exact = false)
    {
        if (exact)
        {
            // The pool's arrays are powers of two (from 16 up), so a power of two at least that is rented exactly.
            length = Math.Max(16, length);
        }

        var array = ArrayPool<T>.Shared.Rent(length);
        if (exact && array.Length != length)
        {
            ArrayPool<T>.Shared.Return(array);
            return new T[length];
        }

        Array.Clear(array);
        return array;
    }

    private static void Grow<T>(ref T[] array, int length)
    {
        var larger = Rent<T>(length);
        array.AsSpan().CopyTo(larger);
        Return(ref array);
        array = larger;
    }

    private static void Return<T>(ref T[] array)
    {
        if (array.Length > 0)
        {
            ArrayPool<T>.Shared.Return(array, clearArray: RuntimeHelpers.IsReferenceOrContainsReferences<T>());
        }

        array = [];
    }

    private static void Place(int[] table, int hash, int slot)
    {
        var mask = table.Length - 1;
        var i = hash & mask;
        while (table[i] != 0)
        {
            i = (i + 1) & mask;
        }

        table[i] = slot + 1;
    }

    private static int Hash(ReadOnlySpan<long> codes)
    {
        var hash = new HashCode();
        foreach (var code in codes)
        {
            hash.Add(code);
        }

        return hash.ToHashCode() & int.MaxValue;
    }

    private void Extreme(int at, int a, object? value)
    {
        if (value is null)
        {
            return;
        }

        var current = _extremes![at];
        var order = current is null ? 0 : GroupValues.Compare(value, current);
        if (current is null || (_query.Aggregates[a].Function == AggregateFunction.Min ? order < 0 : order > 0))
        {
            _extremes[at] = value;
        }
    }

    private void WriteAggregate(Utf8JsonWriter writer, int a, int slot)
    {
        var at = (slot * _aggregateCount) + a;
        var aggregate = _query.Aggregates[a];
        var count = _counts[at];
        if (aggregate.Field < 0 || aggregate.Function == AggregateFunction.Count)
        {
            writer.WriteNumberValue(count);
        }
        else if (aggregate.Function == AggregateFunction.Sum)
        {
            AggregationJson.WriteNumber(writer, _sums[at]);
        }
        else if (count == 0)
        {
            writer.WriteNullValue(); // avg, min and max of no value
        }
        else if (aggregate.Function == AggregateFunction.Avg)
        {
            AggregationJson.WriteNumber(writer, _sums[at] / count);
        }
        else
        {
            switch (_extremes![at])
            {
                case double number: AggregationJson.WriteNumber(writer, number); break;
                case DateTime time: writer.WriteStringValue(time); break;
                default: writer.WriteNullValue(); break;
            }
        }
    }

    private void WriteKey(Utf8JsonWriter writer, int k, long code)
    {
        if (code == NullCode)
        {
            writer.WriteNullValue();
            return;
        }

        switch (_kinds[k])
        {
            case KeyKind.Time: writer.WriteStringValue(new DateTime(code, DateTimeKind.Utc)); break;
            case KeyKind.Bool: writer.WriteBooleanValue(code != 0); break;
            default: writer.WriteStringValue(_terms[k]!.Text((int)code)); break;
        }
    }

    private int Compare(int x, int y)
    {
        foreach (var order in _query.Orders)
        {
            int result;
            if (order.Aggregate >= 0)
            {
                result = CompareAggregate(order.Aggregate, x, y, out var missing);
                if (missing)
                {
                    if (result != 0)
                    {
                        return result; // no value: last, whichever the direction
                    }

                    continue;
                }
            }
            else
            {
                result = CompareKey(order.Key, _keys[(x * _keyCount) + order.Key], _keys[(y * _keyCount) + order.Key]);
            }

            if (result != 0)
            {
                return order.Descending ? -result : result;
            }
        }

        for (var k = 0; k < _keyCount; k++)
        {
            var result = CompareKey(k, _keys[(x * _keyCount) + k], _keys[(y * _keyCount) + k]);
            if (result != 0)
            {
                return result;
            }
        }

        return 0;
    }

    /// <summary>Aggregate <paramref name="a"/> of two slots; <paramref name="missing"/> when either has no value (then: the one without, last).</summary>
    private int CompareAggregate(int a, int x, int y, out bool missing)
    {
        var (ax, ay) = ((x * _aggregateCount) + a, (y * _aggregateCount) + a);
        var aggregate = _query.Aggregates[a];
        missing = false;
        if (aggregate.Field < 0 || aggregate.Function == AggregateFunction.Count)
        {
            return _counts[ax].CompareTo(_counts[ay]);
        }

        if (aggregate.Function == AggregateFunction.Sum)
        {
            return _sums[ax].CompareTo(_sums[ay]);
        }

        var (nx, ny) = (_counts[ax] == 0, _counts[ay] == 0);
        if (nx || ny)
        {
            missing = true;
            return nx == ny ? 0 : nx ? 1 : -1;
        }

        return aggregate.Function == AggregateFunction.Avg
            ? (_sums[ax] / _counts[ax]).CompareTo(_sums[ay] / _counts[ay])
            : GroupValues.Compare(_extremes![ax], _extremes[ay]);
    }

    /// <summary>Key <paramref name="k"/>'s codes in the index's term order (a missing value first).</summary>
    private int CompareKey(int k, long x, long y)
    {
        if (x == NullCode || y == NullCode)
        {
            return (x == NullCode ? 0 : 1) - (y == NullCode ? 0 : 1);
        }

        return _kinds[k] == KeyKind.Keyword ? _terms[k]!.Compare((int)x, (int)y) : x.CompareTo(y);
    }
}
