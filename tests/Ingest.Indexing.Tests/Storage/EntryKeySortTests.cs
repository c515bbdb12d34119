using Ingest.Indexing.Storage;
using Ingest.Testing;

namespace Ingest.Indexing.Tests.Storage;

public sealed class EntryKeySortTests
{
    [Fact]
    public void Packed_pairs_come_out_in_entry_order_keeping_the_order_of_equal_entries() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        for (var round = 0; round < 40; round++)
        {
            // Entry bounds from one pass (small ids) to three (ids near 2^33), so a pass count that ends in the spare array too.
            var maxEntry = round % 4 switch { 0 => random.Next(1, 2_000), 1 => random.Next(1, 1 << 20), 2 => random.NextInt64(1, 1L << 30), _ => random.NextInt64(1, 1L << 33) };
            var entryBits = EntryKeySort.BitsOf(maxEntry);
            var termBits = random.Next(1, 63 - entryBits);
            var count = random.Next(0, 3_000);
            var packed = new long[count];
            for (var i = 0; i < count; i++)
            {
                packed[i] = (random.NextInt64(0, maxEntry + 1) << termBits) | random.NextInt64(0, 1L << termBits);
            }

            if (round % 5 == 0)
            {
                Array.Sort(packed); // already in entry order: left as it is
            }

            var expected = packed.OrderBy(p => p >> termBits).ToArray(); // a stable sort by entry
            EntryKeySort.Sort(packed, termBits, entryBits);
            Assert.Equal(expected, packed);
        }
    });
}
