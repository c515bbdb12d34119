using Ingest.Query.Aggregation;
using Ingest.Testing;

namespace Ingest.Query.Tests.Aggregation;

/// <summary><see cref="MatchPositions"/> (rank bitmap or forward search) against a binary search of the match set.</summary>
public sealed class MatchPositionsTests
{
    [Theory]
    [InlineData(20_000, 1_000_000)] // a 7-day range of a million orders: the bitmap
    [InlineData(5_000, 5_100)] // nearly every id
    [InlineData(30, 1_000_000)] // very sparse: the forward search
    [InlineData(1, 64)] // one word
    public void Positions_match_a_binary_search(int matches, long idRange) => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        var set = new SortedSet<long>();
        while (set.Count < matches)
        {
            set.Add(random.NextInt64(1, idRange + 1));
        }

        var ids = set.ToArray();
        var positions = new MatchPositions(ids);
        try
        {
            for (var list = 0; list < 5; list++)
            {
                // A term's entries: ascending, some matched, most not, ids past the last match too.
                var lookups = positions;
                var entry = random.NextInt64(0, 4);
                while (entry <= idRange + 200)
                {
                    var expected = Array.BinarySearch(ids, entry);
                    Assert.Equal(expected >= 0 ? expected : -1, lookups.Of(entry));
                    entry += random.Next(1, random.Next(2) == 0 ? 5 : (int)Math.Max(2, idRange / 500));
                }
            }
        }
        finally
        {
            positions.Dispose();
        }
    });

    [Fact]
    public void An_empty_match_set_holds_nothing()
    {
        var positions = new MatchPositions([]);
        Assert.Equal(-1, positions.Of(0));
        Assert.Equal(-1, positions.Of(1));
        positions.Dispose();
    }
}
