using Ingest.Storage.Journal;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Tests.Journal;

/// <summary>The journal writes records straight from scratch pages; their checksum must equal the contiguous one recovery checks.</summary>
public sealed unsafe class PiecewiseChecksumTests
{
    [Fact]
    public void Checksum_of_random_pieces_equals_the_checksum_of_their_concatenation() => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var pieces = stackalloc IoVector[16];
        for (var round = 0; round < 200; round++)
        {
            var length = rnd.Next(4) switch
            {
                0 => rnd.Next(0, 64),
                1 => rnd.Next(64, 2000),
                _ => rnd.Next(2000, 100_000),
            };
            var data = new byte[length];
            rnd.NextBytes(data);

            var cuts = Enumerable.Range(0, rnd.Next(0, 12)).Select(_ => rnd.Next(0, length + 1)).Append(0).Append(length).Order().ToArray();
            fixed (byte* p = data)
            {
                for (var i = 0; i + 1 < cuts.Length; i++)
                {
                    pieces[i] = new IoVector { Base = p + cuts[i], Length = (nuint)(cuts[i + 1] - cuts[i]) };
                }

                Assert.Equal(Checksum.Compute(p, length), PiecewiseChecksum.Compute(pieces, cuts.Length - 1, length));
            }
        }
    });
}
