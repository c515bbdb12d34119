using System.Buffers;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Ingest.Indexing.Storage;

/// <summary>
/// The union of the posting lists a term range or prefix reads, built without sorting their concatenation. The lists
/// are appended one run per term; <see cref="Complete"/> then leaves runs that already follow each other as they are
/// (a date range over documents written in date order), merges a few runs (a k-way merge over their heads), and sorts
/// only many short unordered runs. Once the unordered ids pass a quarter of a bitmap's words (<see cref="Threshold"/>)
/// the rest go straight into a bitmap over entry ids, read back in order: setting a bit and reading the words costs
/// less than a sort's log2(n) compares per id from there (startsWith over 111,000 of 1,000,000 orders sorted 3.4 ms).
/// </summary>
internal struct EntryUnion : IEntrySink
{
    /// <summary>At most this many unordered runs are merged; more are sorted (or go to the bitmap).</summary>
    private const int MaxMergedRuns = 16;

    private readonly List<long> _result;
    private readonly int _first;
    private readonly long _maxEntry;
    private readonly int[] _runStarts;
    private ulong[]? _bits;
    private int _runs;
    private int _runEnd;
    private long _last;
    private long _added;
    private bool _ordered;

    public EntryUnion(List<long> result, long maxEntry)
    {
        _result = result;
        _first = result.Count;
        _runEnd = _first;
        _maxEntry = maxEntry;
        _runStarts = ArrayPool<int>.Shared.Rent(MaxMergedRuns + 1);
        _last = long.MinValue;
        _ordered = true;
    }

    /// <summary>Whether ids now go to the bitmap (through <see cref="Add"/>) instead of the result list.</summary>
    public readonly bool IsBitmap => _bits != null;

    /// <summary>Ids from which a bitmap is cheaper than sorting: a quarter of its words, and never fewer than 256.</summary>
    private readonly long Threshold => Math.Max(256, ((_maxEntry >> 6) + 1) / 4);

    /// <summary>Closes the run the caller appended to the result since the last call.</summary>
    public void EndRun()
    {
        var start = _runEnd;
        var count = _result.Count;
        if (count == start)
        {
            return;
        }

        var ids = CollectionsMarshal.AsSpan(_result);
        if (ids[start] <= _last)
        {
            _ordered = false;
        }

        _last = ids[count - 1];
        if (_runs < MaxMergedRuns)
        {
            _runStarts[_runs] = start;
        }

        _runs++;
        _runEnd = count;
        if (!_ordered && count - _first >= Threshold)
        {
            ToBitmap();
        }
    }

    /// <summary>A chunk of ascending ids, once the union is a bitmap.</summary>
    public void Add(ReadOnlySpan<long> entries)
    {
        var bits = _bits!;
        foreach (var id in entries)
        {
            bits[id >> 6] |= 1UL << (int)(id & 63);
        }

        _added += entries.Length;
    }

    /// <summary>Leaves the result ascending and distinct from where the union began.</summary>
    public readonly void Complete()
    {
        if (_bits != null)
        {
            ReadBitmap(_bits);
        }
        else if (!_ordered && _runs <= MaxMergedRuns)
        {
            Merge();
        }
        else if (!_ordered)
        {
            SortDistinct();
        }
    }

    public void Dispose()
    {
        ArrayPool<int>.Shared.Return(_runStarts);
        if (_bits != null)
        {
            ArrayPool<ulong>.Shared.Return(_bits);
            _bits = null;
        }
    }

    private void ToBitmap()
    {
        var words = checked((int)((_maxEntry >> 6) + 1));
        _bits = ArrayPool<ulong>.Shared.Rent(words);
        Array.Clear(_bits, 0, words);
        var ids = CollectionsMarshal.AsSpan(_result)[_first..];
        Add(ids);
        _result.RemoveRange(_first, ids.Length);
    }

    private readonly void ReadBitmap(ulong[] bits)
    {
        var words = (int)((_maxEntry >> 6) + 1);
        CollectionsMarshal.SetCount(_result, _first + (int)Math.Min(_added, Array.MaxLength - _first));
        var output = CollectionsMarshal.AsSpan(_result)[_first..];
        var n = 0;
        for (var w = 0; w < words; w++)
        {
            var word = bits[w];
            var baseId = (long)w << 6;
            while (word != 0)
            {
                output[n++] = baseId + BitOperations.TrailingZeroCount(word);
                word &= word - 1;
            }
        }

        CollectionsMarshal.SetCount(_result, _first + n);
    }

    /// <summary>A k-way merge of the runs (k at most <see cref="MaxMergedRuns"/>): each step takes the smallest head.</summary>
    private readonly void Merge()
    {
        var total = _result.Count - _first;
        var merged = ArrayPool<long>.Shared.Rent(total);
        Span<int> positions = stackalloc int[MaxMergedRuns];
        Span<int> ends = stackalloc int[MaxMergedRuns];
        var ids = CollectionsMarshal.AsSpan(_result);
        for (var r = 0; r < _runs; r++)
        {
            positions[r] = _runStarts[r];
            ends[r] = r + 1 < _runs ? _runStarts[r + 1] : ids.Length;
        }

        var n = 0;
        while (true)
        {
            var best = -1;
            var head = long.MaxValue;
            for (var r = 0; r < _runs; r++)
            {
                if (positions[r] < ends[r] && ids[positions[r]] < head)
                {
                    head = ids[positions[r]];
                    best = r;
                }
            }

            if (best < 0)
            {
                break;
            }

            if (n == 0 || merged[n - 1] != head)
            {
                merged[n++] = head;
            }

            positions[best]++;
        }

        merged.AsSpan(0, n).CopyTo(ids[_first..]);
        CollectionsMarshal.SetCount(_result, _first + n);
        ArrayPool<long>.Shared.Return(merged);
    }

    private readonly void SortDistinct()
    {
        var span = CollectionsMarshal.AsSpan(_result)[_first..];
        span.Sort();
        var count = 0;
        for (var i = 0; i < span.Length; i++)
        {
            if (count == 0 || span[count - 1] != span[i])
            {
                span[count++] = span[i];
            }
        }

        _result.RemoveRange(_first + count, span.Length - count);
    }
}
