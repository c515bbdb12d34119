using Ingest.Indexing.Storage;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Storage;

public sealed class DocumentTermSortTests(ITestOutputHelper output)
{
    [Fact]
    public void Random_terms_sort_as_the_comparer_orders_them() => TestSeed.Run(seed =>
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var random = new Random(seed);
        var comparer = new PostingOpComparer();
        for (var round = 0; round < 500; round++)
        {
            // Short terms over a tiny alphabet with zero bytes (prefixes of each other, equal but for length), long
            // terms that share their first 8 bytes, a few fields; past 64 terms or field 31 the general sort takes over.
            var arena = new ByteArena();
            var terms = new PostingOp[random.Next(round % 10 == 0 ? 150 : 40)];
            for (var i = 0; i < terms.Length; i++)
            {
                var length = random.Next(3) == 0 ? random.Next(8, 14) : random.Next(0, 9);
                var bytes = new byte[length];
                for (var b = 0; b < length; b++)
                {
                    bytes[b] = (byte)(b < 8 && length > 8 ? 7 : random.Next(3) * 127);
                }

                terms[i] = new PostingOp(random.Next(round % 7 == 0 ? 40 : 4), arena.Append(bytes), length, 1, IsAddition: true);
            }

            comparer.Arena = arena.Bytes;
            var expected = terms.ToArray();
            Array.Sort(expected, comparer);

            DocumentTermSort.Sort(terms, arena.Bytes, comparer);

            var shown = (PostingOp[] ops) => ops.Select(op => $"{op.Field}:{Convert.ToHexString(arena.Bytes, op.Start, op.Length)}").ToArray();
            Assert.Equal(shown(expected), shown(terms));
        }
    });
}
