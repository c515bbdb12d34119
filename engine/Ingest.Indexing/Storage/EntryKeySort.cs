using System.Buffers;
using System.Numerics;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Puts (entry, term) pairs packed in one long each (<c>entry &lt;&lt; termBits | term</c>: entry ids are bounded by the
/// index's largest, <see cref="IndexReader.MaxEntryId"/>, and a range's terms by its term limit) in entry order with a
/// least-significant-digit radix sort over the entry's bits only: two passes of at most 11 bits at 1,000,000 entries,
/// one histogram read for all passes and a scatter per pass, where a comparison sort makes log2(n) compares per pair.
/// One array of 8-byte items: sorting entries and keys as two arrays of pairs wrote two streams per digit and cost
/// about 1.2 ms for a month of 1,000,000 orders (85,000 pairs). The sort is stable.
/// </summary>
internal static class EntryKeySort
{
    private const int MaxDigitBits = 11;

    /// <summary>How many bits an entry id up to <paramref name="maxEntry"/> takes.</summary>
    public static int BitsOf(long maxEntry) => 64 - BitOperations.LeadingZeroCount((ulong)Math.Max(1, maxEntry));

    /// <summary>Sorts <paramref name="packed"/> (non-negative) by bits [<paramref name="lowBits"/>, <paramref name="lowBits"/> + <paramref name="bits"/>), stably.</summary>
    public static void Sort(Span<long> packed, int lowBits, int bits)
    {
        if (IsAscending(packed, lowBits))
        {
            return; // a range over documents written in its field's order: nothing to do
        }

        var passes = (bits + MaxDigitBits - 1) / MaxDigitBits;
        var digitBits = (bits + passes - 1) / passes;
        var buckets = 1 << digitBits;
        var n = packed.Length;
        var spare = ArrayPool<long>.Shared.Rent(n);
        var counts = ArrayPool<int>.Shared.Rent(buckets * passes);
        try
        {
            var histograms = counts.AsSpan(0, buckets * passes);
            histograms.Clear();
            var mask = (long)buckets - 1;
            foreach (var item in packed)
            {
                var entry = item >> lowBits;
                for (var pass = 0; pass < passes; pass++)
                {
                    histograms[(pass * buckets) + (int)((entry >> (pass * digitBits)) & mask)]++;
                }
            }

            Span<long> from = packed, to = spare.AsSpan(0, n);
            for (var pass = 0; pass < passes; pass++)
            {
                var histogram = histograms.Slice(pass * buckets, buckets);
                var start = 0;
                for (var d = 0; d < buckets; d++)
                {
                    var count = histogram[d];
                    histogram[d] = start;
                    start += count;
                }

                var shift = lowBits + (pass * digitBits);
                foreach (var item in from)
                {
                    to[histogram[(int)((item >> shift) & mask)]++] = item;
                }

                var swap = from;
                from = to;
                to = swap;
            }

            if (passes % 2 == 1)
            {
                from.CopyTo(packed); // the last pass wrote the spare array
            }
        }
        finally
        {
            ArrayPool<long>.Shared.Return(spare);
            ArrayPool<int>.Shared.Return(counts);
        }
    }

    private static bool IsAscending(ReadOnlySpan<long> packed, int lowBits)
    {
        for (var i = 1; i < packed.Length; i++)
        {
            if ((packed[i] >> lowBits) < (packed[i - 1] >> lowBits))
            {
                return false;
            }
        }

        return true;
    }
}
