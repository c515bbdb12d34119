using Ingest.Indexing.Storage;
using Ingest.Testing;

namespace Ingest.Indexing.Tests.Storage;

public sealed class EntryKeySortTests
{
    [Fact]
    public void Pairs_come_out_in_entry_order_with_their_keys_and_repeats_keep_their_first_key() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        for (var round = 0; round < 40; round++)
        {
            // Bounds from one pass (small ids) to four (ids near 2^40): every pass count and an odd one that ends in the spare arrays.
            var maxEntry = round % 4 switch { 0 => random.Next(1, 4_000), 1 => random.Next(1, 1 << 24), 2 => random.NextInt64(1, 1L << 36), _ => random.NextInt64(1, 1L << 40) };
            var count = random.Next(0, 3_000);
            var entries = new long[count];
            var keys = new long[count];
            for (var i = 0; i < count; i++)
            {
                entries[i] = random.NextInt64(0, maxEntry + 1);
                keys[i] = random.NextInt64(long.MinValue, long.MaxValue);
            }

            if (round % 5 == 0)
            {
                Array.Sort(entries); // already ascending: left as it is
            }

            // Expected: a stable sort by entry, then the first pair of each entry.
            var expected = Enumerable.Range(0, count).Select(i => (Entry: entries[i], Key: keys[i])).OrderBy(p => p.Entry).DistinctBy(p => p.Entry).ToArray();
            var n = EntryKeySort.SortDistinct(entries, keys, maxEntry);
            Assert.Equal(expected.Select(p => p.Entry), entries[..n]);
            Assert.Equal(expected.Select(p => p.Key), keys[..n]);
        }
    });
}
