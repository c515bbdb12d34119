namespace Ingest.Indexing.Storage;

/// <summary>
/// Counts the entries it is handed and keeps the <c>k</c> smallest above a bound in a max-heap (a pooled array): the
/// first page of a range in entry order without sorting, or even holding, the whole match set. Entries must be
/// distinct across calls (each entry met once, as a single-valued field's terms give them).
/// </summary>
internal struct SmallestEntries : IEntrySink
{
    private readonly long[] _heap;
    private readonly int _capacity;
    private readonly long _after;
    private int _size;

    public SmallestEntries(long[] heap, int capacity, long after)
    {
        _heap = heap;
        _capacity = capacity;
        _after = after;
    }

    /// <summary>Every entry handed over, the ones at or below the bound included.</summary>
    public long Count { get; private set; }

    public void Add(ReadOnlySpan<long> entries)
    {
        Count += entries.Length;
        foreach (var entry in entries)
        {
            if (entry <= _after)
            {
                continue;
            }

            if (_size < _capacity)
            {
                SiftUp(entry);
            }
            else if (_capacity > 0 && entry < _heap[0])
            {
                SiftDown(entry);
            }
            else
            {
                // A chunk is ascending: the rest of it is larger still, so it is only counted.
                return;
            }
        }
    }

    /// <summary>Appends the kept entries to <paramref name="result"/>, ascending.</summary>
    public readonly void AppendTo(List<long> result)
    {
        var kept = _heap.AsSpan(0, _size);
        kept.Sort();
        result.AddRange(kept);
    }

    private void SiftUp(long entry)
    {
        var i = _size++;
        while (i > 0)
        {
            var parent = (i - 1) >> 1;
            if (_heap[parent] >= entry)
            {
                break;
            }

            _heap[i] = _heap[parent];
            i = parent;
        }

        _heap[i] = entry;
    }

    /// <summary>Replaces the largest kept entry with a smaller one.</summary>
    private readonly void SiftDown(long entry)
    {
        var i = 0;
        while (true)
        {
            var child = (2 * i) + 1;
            if (child >= _size)
            {
                break;
            }

            if (child + 1 < _size && _heap[child + 1] > _heap[child])
            {
                child++;
            }

            if (_heap[child] <= entry)
            {
                break;
            }

            _heap[i] = _heap[child];
            i = child;
        }

        _heap[i] = entry;
    }
}
