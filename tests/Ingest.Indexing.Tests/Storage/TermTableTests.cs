using Ingest.Indexing.Storage;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Storage;

public sealed class TermTableTests(ITestOutputHelper output)
{
    [Fact]
    public void Random_terms_of_every_length_get_the_ids_a_dictionary_gives_them_across_batches() => TestSeed.Run(seed =>
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var random = new Random(seed);
        var table = new TermTable();
        for (var batch = 0; batch < 6; batch++)
        {
            // Batches of very different sizes: the table grows, then a small batch must see none of a large one's terms.
            var arena = new ByteArena();
            var model = new Dictionary<(int Field, string Hex), int>();
            var terms = random.Next(batch % 2 == 0 ? 5_000 : 20);
            table.Clear();
            for (var i = 0; i < terms; i++)
            {
                // Few distinct short terms (repeats, same bytes on two fields, prefixes of each other) and some long ones.
                var length = random.Next(4) == 0 ? random.Next(9, 40) : random.Next(0, 10);
                var bytes = new byte[length];
                for (var b = 0; b < length; b++)
                {
                    bytes[b] = (byte)random.Next(length > 8 ? 256 : 3);
                }

                var field = random.Next(3);
                var start = arena.Append(bytes);
                var key = (field, Convert.ToHexString(bytes));
                if (!model.TryGetValue(key, out var expected))
                {
                    expected = model.Count;
                    model[key] = expected;
                }

                Assert.Equal(expected, table.Intern(field, arena.Bytes, start, length));
            }

            Assert.Equal(model.Count, table.Count);
        }
    });
}
