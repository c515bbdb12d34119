using System.Buffers;

namespace Ingest.Query.Aggregation;

/// <summary>
/// Where an entry id sits in the match set (ascending ids), for walking posting lists against it. A dense match set
/// (ids at least 1 in <see cref="DenseRatio"/> of the id range) gets a pooled id -> position table, O(1) per lookup;
/// a sparse one is searched, each lookup starting where the previous one of the same ascending list ended.
/// </summary>
internal ref struct MatchPositions
{
    private const int DenseRatio = 16;

    private readonly ReadOnlySpan<long> _matches;
    private int[]? _table;
    private long _tableLength;
    private int _from;

    public MatchPositions(ReadOnlySpan<long> matches)
    {
        _matches = matches;
        if (matches.IsEmpty)
        {
            return;
        }

        var last = matches[^1];
        if (last < Array.MaxLength && last / DenseRatio <= matches.Length)
        {
            _tableLength = last + 1;
            _table = ArrayPool<int>.Shared.Rent((int)_tableLength);
            _table.AsSpan(0, (int)_tableLength).Fill(-1);
            for (var i = 0; i < matches.Length; i++)
            {
                _table[matches[i]] = i;
            }
        }
    }

    /// <summary>Starts a new ascending list of lookups (the next term's entries).</summary>
    public void Restart() => _from = 0;

    /// <summary>The position of <paramref name="entry"/> in the match set, or -1. Lookups between restarts must ascend.</summary>
    public int Of(long entry)
    {
        if (_table != null)
        {
            return (ulong)entry < (ulong)_tableLength ? _table[entry] : -1;
        }

        var found = _matches[_from..].BinarySearch(entry);
        if (found >= 0)
        {
            _from += found + 1;
            return _from - 1;
        }

        _from += ~found;
        return -1;
    }

    public void Dispose()
    {
        if (_table != null)
        {
            ArrayPool<int>.Shared.Return(_table);
            _table = null;
        }
    }
}
