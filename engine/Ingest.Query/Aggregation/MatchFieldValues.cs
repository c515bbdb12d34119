using System.Buffers;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Aggregation;

/// <summary>
/// The values of the match set's fields, read once per field however many keys, aggregates and facets use them:
/// column values (one per match, pooled arrays) and term groups (every distinct value per match).
/// </summary>
internal sealed class MatchFieldValues : IDisposable
{
    private readonly IndexReader _reader;
    private readonly int _matchCount;
    private readonly Dictionary<int, double[]> _numbers = [];
    private readonly Dictionary<int, long[]> _ticks = [];
    private readonly Dictionary<int, FieldTermGroups> _terms = [];

    public MatchFieldValues(IndexReader reader, int matchCount)
    {
        _reader = reader;
        _matchCount = matchCount;
    }

    /// <summary>
    /// Takes a number or datetime field's values from its column keys, one per match (a filter that walked the column
    /// read them): <see cref="Numbers"/> or <see cref="Ticks"/> of that field then reads nothing.
    /// </summary>
    public void UseColumnKeys(int field, IndexFieldType type, ReadOnlySpan<long> columnKeys)
    {
        if (type == IndexFieldType.Number && !_numbers.ContainsKey(field))
        {
            var values = ArrayPool<double>.Shared.Rent(Math.Max(1, _matchCount));
            _numbers.Add(field, values);
            for (var i = 0; i < _matchCount; i++)
            {
                values[i] = IndexReader.DecodeNumberColumnKey(columnKeys[i]);
            }
        }
        else if (type == IndexFieldType.DateTime && !_ticks.ContainsKey(field))
        {
            var values = ArrayPool<long>.Shared.Rent(Math.Max(1, _matchCount));
            _ticks.Add(field, values);
            for (var i = 0; i < _matchCount; i++)
            {
                values[i] = IndexReader.DecodeDateTimeColumnKey(columnKeys[i]);
            }
        }
    }

    /// <summary>Each match's first number (NaN: none).</summary>
    public double[] Numbers(int field, ReadOnlySpan<long> matches)
    {
        if (!_numbers.TryGetValue(field, out var values))
        {
            values = ArrayPool<double>.Shared.Rent(Math.Max(1, _matchCount));
            _numbers.Add(field, values);
            _reader.ReadNumbers(field, matches, values.AsSpan(0, _matchCount));
        }

        return values;
    }

    /// <summary>Each match's first datetime in UTC ticks (-1: none).</summary>
    public long[] Ticks(int field, ReadOnlySpan<long> matches)
    {
        if (!_ticks.TryGetValue(field, out var values))
        {
            values = ArrayPool<long>.Shared.Rent(Math.Max(1, _matchCount));
            _ticks.Add(field, values);
            _reader.ReadDateTimeTicks(field, matches, values.AsSpan(0, _matchCount));
        }

        return values;
    }

    /// <summary>
    /// Each match's distinct values of the field: a keyword field's from its ordinal column (cost per match), others
    /// (and keyword fields of a build older than the ordinal columns) from a walk of the field's terms.
    /// </summary>
    public FieldTermGroups Terms(int field, IndexFieldType type, ReadOnlySpan<long> matches, CancellationToken cancellationToken)
    {
        if (_terms.TryGetValue(field, out var groups))
        {
            return groups;
        }

        if (type == IndexFieldType.Keyword && _reader.HasOrdinals && _reader.OrdinalLimit(field) <= FieldTermGroups.MaxOrdinalMap)
        {
            groups = FieldTermGroups.BuildFromOrdinals(_reader, field, matches, cancellationToken);
            _terms.Add(field, groups);
        }
        else
        {
            var positions = new MatchPositions(matches);
            try
            {
                groups = FieldTermGroups.Build(_reader, field, ref positions, _matchCount, cancellationToken);
            }
            finally
            {
                positions.Dispose();
            }

            _terms.Add(field, groups);
        }

        return groups;
    }

    public void Dispose()
    {
        foreach (var values in _numbers.Values)
        {
            ArrayPool<double>.Shared.Return(values);
        }

        foreach (var values in _ticks.Values)
        {
            ArrayPool<long>.Shared.Return(values);
        }

        foreach (var groups in _terms.Values)
        {
            groups.Dispose();
        }

        _numbers.Clear();
        _ticks.Clear();
        _terms.Clear();
    }
}
