using System.Buffers;
using System.Numerics;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Sorts (entry, key) pairs by entry with a least-significant-digit radix sort: entry ids are bounded by the index's
/// largest (<see cref="IndexReader.MaxEntryId"/>), so two or three passes of at most 12 bits each, a histogram and a
/// scatter per pass, put 85,000 pairs in order in a fraction of a comparison sort's log2(n) compares per pair.
/// The sort is stable, and <see cref="SortDistinct"/> then keeps the first pair of each entry.
/// </summary>
internal static class EntryKeySort
{
    private const int MaxDigitBits = 12;

    /// <summary>
    /// <see cref="Sort"/>, then moves the first pair of each entry to the front; returns how many entries are distinct
    /// (an entry of a single-valued field is under one term, so all of them, but a union must never repeat one).
    /// </summary>
    public static int SortDistinct(Span<long> entries, Span<long> keys, long maxEntry)
    {
        Sort(entries, keys, maxEntry);
        if (entries.IsEmpty)
        {
            return 0;
        }

        var n = 1;
        for (var i = 1; i < entries.Length; i++)
        {
            if (entries[i] != entries[n - 1])
            {
                entries[n] = entries[i];
                keys[n++] = keys[i];
            }
        }

        return n;
    }

    /// <summary>Sorts <paramref name="entries"/> ascending (each at most <paramref name="maxEntry"/>), moving each <paramref name="keys"/> item with its entry.</summary>
    public static void Sort(Span<long> entries, Span<long> keys, long maxEntry)
    {
        if (IsAscending(entries))
        {
            return; // a range over documents written in its field's order: nothing to do
        }

        var bits = 64 - BitOperations.LeadingZeroCount((ulong)Math.Max(1, maxEntry));
        var passes = (bits + MaxDigitBits - 1) / MaxDigitBits;
        var digitBits = (bits + passes - 1) / passes;
        var n = entries.Length;
        var spareEntries = ArrayPool<long>.Shared.Rent(n);
        var spareKeys = ArrayPool<long>.Shared.Rent(n);
        var counts = ArrayPool<int>.Shared.Rent(1 << digitBits);
        try
        {
            Span<long> fromEntries = entries, fromKeys = keys;
            Span<long> toEntries = spareEntries.AsSpan(0, n), toKeys = spareKeys.AsSpan(0, n);
            var mask = (1L << digitBits) - 1;
            for (var pass = 0; pass < passes; pass++)
            {
                var shift = pass * digitBits;
                var histogram = counts.AsSpan(0, 1 << digitBits);
                histogram.Clear();
                foreach (var entry in fromEntries)
                {
                    histogram[(int)((entry >> shift) & mask)]++;
                }

                var start = 0;
                for (var d = 0; d < histogram.Length; d++)
                {
                    var count = histogram[d];
                    histogram[d] = start;
                    start += count;
                }

                for (var i = 0; i < n; i++)
                {
                    var entry = fromEntries[i];
                    var at = histogram[(int)((entry >> shift) & mask)]++;
                    toEntries[at] = entry;
                    toKeys[at] = fromKeys[i];
                }

                var swapEntries = fromEntries;
                var swapKeys = fromKeys;
                fromEntries = toEntries;
                fromKeys = toKeys;
                toEntries = swapEntries;
                toKeys = swapKeys;
            }

            if (passes % 2 == 1)
            {
                fromEntries.CopyTo(entries); // the last pass wrote the spare arrays
                fromKeys.CopyTo(keys);
            }
        }
        finally
        {
            ArrayPool<long>.Shared.Return(spareEntries);
            ArrayPool<long>.Shared.Return(spareKeys);
            ArrayPool<int>.Shared.Return(counts);
        }
    }

    private static bool IsAscending(ReadOnlySpan<long> entries)
    {
        for (var i = 1; i < entries.Length; i++)
        {
            if (entries[i] < entries[i - 1])
            {
                return false;
            }
        }

        return true;
    }
}
