using System.Text.Json;
using Ingest.Indexing.Reduce;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// The query's groups as <see cref="ReaggregatedQuery"/> folds a map-reduce index's groups and the edges' rows into
/// them: per group its keys, and per aggregate its count of values (documents for count()), its sum and its least or
/// greatest value; per facet a count per value. Rows are written as query-time aggregation writes them: ordered by the
/// query's order by (values that may be missing, avg/min/max of no value, last both ways), then by keys ascending
/// (strings in UTF-8 byte order, the index's term order); facet values by descending count, then value.
/// Over 300 lines: folding (from groups and from edge rows), ordering and writing share one slot layout, kept in one place.
/// </summary>
internal sealed class ReaggregatedGroups
{
    private readonly ReaggregationPlan _plan;
    private readonly AggregationQuery _query;
    private readonly Dictionary<object?[], int> _slots = new(KeyTupleComparer.Instance);
    private readonly List<object?[]> _keys = [];
    private readonly List<long[]> _counts = [];
    private readonly List<double[]> _sums = [];
    private readonly List<object?[]> _extremes = [];
    private readonly Dictionary<object, long>[] _facetCounts;
    private readonly object?[] _scratch;

    public ReaggregatedGroups(ReaggregationPlan plan)
    {
        _plan = plan;
        _query = plan.Aggregation;
        _facetCounts = new Dictionary<object, long>[_query.Facets.Count];
        for (var f = 0; f < _facetCounts.Length; f++)
        {
            _facetCounts[f] = [];
        }

        _scratch = new object?[_query.Keys.Count];
        if (!_query.IsFacets && _query.Keys.Count == 0)
        {
            Slot(); // without keys there is one row, documents or not
        }
    }

    /// <summary>Folds the cursor's current group in.</summary>
    public void Add(GroupCursor cursor)
    {
        if (_query.IsFacets)
        {
            for (var f = 0; f < _facetCounts.Length; f++)
            {
                if (cursor.GetKey(_plan.KeySources[f]) is { } value)
                {
                    _facetCounts[f][value] = _facetCounts[f].GetValueOrDefault(value) + cursor.DocumentCount;
                }
            }

            return;
        }

        for (var k = 0; k < _scratch.Length; k++)
        {
            var value = cursor.GetKey(_plan.KeySources[k]);
            if (value is null)
            {
                return; // query-time aggregation puts a document without a key's value in no group
            }

            _scratch[k] = _query.Keys[k].Interval is { } interval
                ? new DateTime(interval.StartOf(interval.BucketOf(((DateTime)value).Ticks)), DateTimeKind.Utc)
                : value;
        }

        var slot = Slot();
        for (var a = 0; a < _query.Aggregates.Count; a++)
        {
            var aggregate = _query.Aggregates[a];
            var source = _plan.AggregateSources[a];
            if (aggregate.Field < 0)
            {
                _counts[slot][a] += cursor.DocumentCount;
                continue;
            }

            var count = cursor.GetValueCount(source);
            _counts[slot][a] += count;
            if (aggregate.Function is AggregateFunction.Sum or AggregateFunction.Avg)
            {
                _sums[slot][a] += cursor.GetSum(source);
            }
            else if (aggregate.Function is AggregateFunction.Min or AggregateFunction.Max && count > 0)
            {
                Extreme(slot, a, cursor.GetAggregate(source));
            }
        }
    }

    /// <summary>Folds in one row of an edge's query-time aggregation (<paramref name="edge"/> bound it; <paramref name="facet"/>: which facet a facet query's edge counted).</summary>
    public void AddEdgeRow(JsonElement row, AggregationQuery edge, int facet)
    {
        var c = 0;
        var slot = -1;
        object? facetValue = null;
        long facetCount = 0;
        var values = new List<(int Column, JsonElement Value)>();
        foreach (var property in row.EnumerateObject())
        {
            var source = edge.ColumnSources[c];
            if (source >= 0)
            {
                var key = _query.IsFacets ? ReadKey(property.Value, _query.Facets[facet].Type == Indexing.Definitions.IndexFieldType.Bool, false) : ReadKey(property.Value, _query.Keys[source].Type == Indexing.Definitions.IndexFieldType.Bool, _query.Keys[source].Interval != null);
                if (_query.IsFacets)
                {
                    facetValue = key;
                }
                else
                {
                    _scratch[source] = key;
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
            facetCount = values[0].Value.GetInt64();
            if (facetValue != null && facetCount > 0)
            {
                _facetCounts[facet][facetValue] = _facetCounts[facet].GetValueOrDefault(facetValue) + facetCount;
            }

            return;
        }

        slot = Slot();
        foreach (var (column, value) in values)
        {
            var name = edge.Columns[column].Name;
            var a = int.Parse(name.AsSpan(3), System.Globalization.CultureInfo.InvariantCulture);
            if (name[2] == 'c')
            {
                _counts[slot][a] += value.GetInt64();
            }
            else if (value.ValueKind != JsonValueKind.Null)
            {
                if (_query.Aggregates[a].Function is AggregateFunction.Sum or AggregateFunction.Avg)
                {
                    _sums[slot][a] += value.GetDouble();
                }
                else
                {
                    Extreme(slot, a, value.ValueKind == JsonValueKind.String ? value.GetDateTime().ToUniversalTime() : value.GetDouble());
                }
            }
        }
    }

    /// <summary>Writes the groups after offset, at most limit; returns the groups and the rows written.</summary>
    public (long Total, long Written) WriteRows(Utf8JsonWriter writer)
    {
        var rows = new int[_keys.Count];
        for (var i = 0; i < rows.Length; i++)
        {
            rows[i] = i;
        }

        Array.Sort(rows, Compare);
        var names = new JsonEncodedText[_query.Columns.Count];
        for (var c = 0; c < names.Length; c++)
        {
            names[c] = JsonEncodedText.Encode(_query.Columns[c].Name);
        }

        var end = Math.Min(rows.Length, _query.Offset + Math.Min(_query.Limit, int.MaxValue));
        long written = 0;
        for (var r = _query.Offset; r < end; r++)
        {
            var slot = rows[r];
            writer.WriteStartObject();
            for (var c = 0; c < names.Length; c++)
            {
                writer.WritePropertyName(names[c]);
                var source = _query.ColumnSources[c];
                if (source >= 0)
                {
                    WriteValue(writer, _keys[slot][source]);
                }
                else
                {
                    WriteAggregate(writer, -1 - source, slot);
                }
            }

            writer.WriteEndObject();
            written++;
        }

        return (rows.Length, written);
    }

    /// <summary>Writes every facet's values (<c>{"facet", "value", "count"}</c>), by descending count, then value.</summary>
    public (long Total, long Written) WriteFacets(Utf8JsonWriter writer)
    {
        long rows = 0;
        for (var f = 0; f < _facetCounts.Length; f++)
        {
            var entries = _facetCounts[f].ToArray();
            Array.Sort(entries, static (x, y) => x.Value != y.Value ? y.Value.CompareTo(x.Value) : CompareKeys(x.Key, y.Key));
            foreach (var (value, count) in entries)
            {
                writer.WriteStartObject();
                writer.WriteString("facet", _query.Facets[f].Name);
                writer.WritePropertyName("value");
                WriteValue(writer, value);
                writer.WriteNumber("count", count);
                writer.WriteEndObject();
                rows++;
            }
        }

        return (rows, rows);
    }

    private int Slot()
    {
        if (_slots.TryGetValue(_scratch, out var slot))
        {
            return slot;
        }

        slot = _keys.Count;
        var keys = (object?[])_scratch.Clone();
        _slots.Add(keys, slot);
        _keys.Add(keys);
        _counts.Add(new long[_query.Aggregates.Count]);
        _sums.Add(new double[_query.Aggregates.Count]);
        _extremes.Add(new object?[_query.Aggregates.Count]);
        return slot;
    }

    private void Extreme(int slot, int a, object? value)
    {
        if (value is null)
        {
            return;
        }

        var current = _extremes[slot][a];
        var order = current is null ? 0 : GroupValues.Compare(value, current);
        if (current is null || (_query.Aggregates[a].Function == AggregateFunction.Min ? order < 0 : order > 0))
        {
            _extremes[slot][a] = value;
        }
    }

    /// <summary>An aggregate's value, or null when it has none (avg, min and max of no value; count and sum always have one).</summary>
    private object? Value(int a, int slot)
    {
        var aggregate = _query.Aggregates[a];
        var count = _counts[slot][a];
        return aggregate.Function switch
        {
            _ when aggregate.Field < 0 => count,
            AggregateFunction.Count => count,
            AggregateFunction.Sum => _sums[slot][a],
            AggregateFunction.Avg => count == 0 ? null : _sums[slot][a] / count,
            _ => count == 0 ? null : _extremes[slot][a],
        };
    }

    private void WriteAggregate(Utf8JsonWriter writer, int a, int slot)
    {
        switch (Value(a, slot))
        {
            case long count: writer.WriteNumberValue(count); break;
            case double number: AggregationJson.WriteNumber(writer, number); break;
            case DateTime time: writer.WriteStringValue(time); break;
            default: writer.WriteNullValue(); break;
        }
    }

    private static void WriteValue(Utf8JsonWriter writer, object? value)
    {
        switch (value)
        {
            case string s: writer.WriteStringValue(s); break;
            case DateTime t: writer.WriteStringValue(t); break;
            case bool b: writer.WriteBooleanValue(b); break;
            case double d: AggregationJson.WriteNumber(writer, d); break;
            default: writer.WriteNullValue(); break;
        }
    }

    private int Compare(int x, int y)
    {
        foreach (var order in _query.Orders)
        {
            int result;
            if (order.Aggregate >= 0)
            {
                var (vx, vy) = (Value(order.Aggregate, x), Value(order.Aggregate, y));
                if (vx is null || vy is null)
                {
                    result = vx is null == vy is null ? 0 : vx is null ? 1 : -1; // no value: last, whichever the direction
                    if (result != 0)
                    {
                        return result;
                    }

                    continue;
                }

                result = GroupValues.Compare(vx, vy);
            }
            else
            {
                result = CompareKeys(_keys[x][order.Key], _keys[y][order.Key]);
            }

            if (result != 0)
            {
                return order.Descending ? -result : result;
            }
        }

        for (var k = 0; k < _keys[x].Length; k++)
        {
            var result = CompareKeys(_keys[x][k], _keys[y][k]);
            if (result != 0)
            {
                return result;
            }
        }

        return 0;
    }

    /// <summary>Keys in the index's term order: strings by UTF-8 bytes (code points), the rest by value.</summary>
    private static int CompareKeys(object? x, object? y)
    {
        if (x is string sx && y is string sy)
        {
            var (ex, ey) = (sx.EnumerateRunes(), sy.EnumerateRunes());
            while (true)
            {
                var (mx, my) = (ex.MoveNext(), ey.MoveNext());
                if (!mx || !my)
                {
                    return mx == my ? 0 : mx ? 1 : -1;
                }

                var c = ex.Current.Value.CompareTo(ey.Current.Value);
                if (c != 0)
                {
                    return c;
                }
            }
        }

        return GroupValues.Compare(x, y);
    }

    private static object? ReadKey(JsonElement value, bool isBool, bool isTime) => value.ValueKind switch
    {
        JsonValueKind.Null => null,
        JsonValueKind.True or JsonValueKind.False when isBool => value.GetBoolean(),
        JsonValueKind.String when isTime => value.GetDateTime().ToUniversalTime(),
        _ => value.GetString(),
    };
}
