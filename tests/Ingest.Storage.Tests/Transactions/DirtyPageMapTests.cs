using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Tests.Transactions;

public sealed class DirtyPageMapTests
{
    [Fact]
    public void Random_adds_removes_and_lookups_match_a_dictionary() => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var map = new DirtyPageMap();
        var model = new Dictionary<long, nint>();
        for (var round = 0; round < 5; round++)
        {
            var range = rnd.Next(2) == 0 ? 500 : 200_000;
            for (var i = 0; i < 50_000; i++)
            {
                var page = rnd.Next(1, range);
                switch (rnd.Next(3))
                {
                    case 0:
                        if (!model.ContainsKey(page))
                        {
                            map.Add(new PageVersion { Page = page, Pointer = page * 16, Pages = 1 });
                            model[page] = page * 16;
                        }

                        break;
                    case 1:
                        Assert.Equal(model.Remove(page, out var expected), map.Remove(page, out var removed));
                        if (expected != 0)
                        {
                            Assert.Equal(expected, removed.Pointer);
                        }

                        break;
                    default:
                        Assert.Equal(model.GetValueOrDefault(page), map.Find(page));
                        break;
                }
            }

            Assert.Equal(model.Count, map.Count);
            var seen = 0;
            foreach (var e in map.RawEntries)
            {
                if (e.Page != 0)
                {
                    Assert.Equal(model[e.Page], e.Pointer);
                    seen++;
                }
            }

            Assert.Equal(model.Count, seen);
            if (rnd.Next(2) == 0)
            {
                map.Clear();
                model.Clear();
            }
        }
    });
}
