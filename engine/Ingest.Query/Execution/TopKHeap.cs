using System.Buffers;

namespace Ingest.Query.Execution;

/// <summary>
/// The k smallest candidates by (keys, entry) seen so far: a binary max-heap (root = the worst kept) over pooled
/// arrays, so a pass over a million matches keeps k entries and their keys and allocates nothing per entry.
/// </summary>
internal sealed class TopKHeap : IDisposable
{
    private readonly int _keyCount;
    private long[] _entries;
    private UInt128[] _keys;
    private int _capacity;

    public TopKHeap(int capacity, int keyCount)
    {
        _keyCount = keyCount;
        _capacity = capacity;
        _entries = ArrayPool<long>.Shared.Rent(Math.Max(1, capacity));
        _keys = ArrayPool<UInt128>.Shared.Rent(Math.Max(1, capacity * keyCount));
    }

    public int Count { get; private set; }

    public void Reset(int capacity)
    {
        if (capacity > _entries.Length || capacity * _keyCount > _keys.Length)
        {
            ArrayPool<long>.Shared.Return(_entries);
            ArrayPool<UInt128>.Shared.Return(_keys);
            _entries = ArrayPool<long>.Shared.Rent(Math.Max(1, capacity));
            _keys = ArrayPool<UInt128>.Shared.Rent(Math.Max(1, capacity * _keyCount));
        }

        _capacity = capacity;
        Count = 0;
    }

    public long EntryAt(int i) => _entries[i];

    public ReadOnlySpan<UInt128> KeysAt(int i) => _keys.AsSpan(i * _keyCount, _keyCount);

    /// <summary>Whether (keys, entry) would be kept: the heap has room or it beats the worst kept.</summary>
    public bool Offer(long entry, ReadOnlySpan<UInt128> keys)
    {
        if (_capacity == 0)
        {
            return false;
        }

        if (Count < _capacity)
        {
            Set(Count, entry, keys);
            SiftUp(Count++);
            return true;
        }

        if (Compare(keys, entry, KeysAt(0), _entries[0]) >= 0)
        {
            return false;
        }

        Set(0, entry, keys);
        SiftDown(0, Count);
        return true;
    }

    /// <summary>Sorts the kept candidates ascending in place (heap sort), ready to read with <see cref="EntryAt"/>.</summary>
    public void SortAscending()
    {
        for (var end = Count - 1; end > 0; end--)
        {
            Swap(0, end);
            SiftDown(0, end);
        }
    }

    public static int Compare(ReadOnlySpan<UInt128> a, long entryA, ReadOnlySpan<UInt128> b, long entryB)
    {
        for (var i = 0; i < a.Length; i++)
        {
            var c = a[i].CompareTo(b[i]);
            if (c != 0)
            {
                return c;
            }
        }

        return entryA.CompareTo(entryB);
    }

    public void Dispose()
    {
        ArrayPool<long>.Shared.Return(_entries);
        ArrayPool<UInt128>.Shared.Return(_keys);
        _entries = [];
        _keys = [];
    }

    private int CompareAt(int i, int j) => Compare(KeysAt(i), _entries[i], KeysAt(j), _entries[j]);

    private void Set(int i, long entry, ReadOnlySpan<UInt128> keys)
    {
        _entries[i] = entry;
        keys.CopyTo(_keys.AsSpan(i * _keyCount, _keyCount));
    }

    private void Swap(int i, int j)
    {
        (_entries[i], _entries[j]) = (_entries[j], _entries[i]);
        for (var k = 0; k < _keyCount; k++)
        {
            (_keys[(i * _keyCount) + k], _keys[(j * _keyCount) + k]) = (_keys[(j * _keyCount) + k], _keys[(i * _keyCount) + k]);
        }
    }

    private void SiftUp(int i)
    {
        while (i > 0)
        {
            var parent = (i - 1) / 2;
            if (CompareAt(i, parent) <= 0)
            {
                return;
            }

            Swap(i, parent);
            i = parent;
        }
    }

    private void SiftDown(int i, int size)
    {
        while (true)
        {
            var largest = i;
            var left = (2 * i) + 1;
            var right = left + 1;
            if (left < size && CompareAt(left, largest) > 0)
            {
                largest = left;
            }

            if (right < size && CompareAt(right, largest) > 0)
            {
                largest = right;
            }

            if (largest == i)
            {
                return;
            }

            Swap(i, largest);
            i = largest;
        }
    }
}
