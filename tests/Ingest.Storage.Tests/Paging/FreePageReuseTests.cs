namespace Ingest.Storage.Tests.Paging;

/// <summary>Pages freed by deletes are reused by later puts: a store whose live size stays bounded stops growing.</summary>
public sealed class FreePageReuseTests
{
    [Fact]
    public void A_randomized_put_and_delete_loop_stops_growing_the_data_file() => TestSeed.Run(seed =>
    {
        using var dir = new TestDirectory();
        var rnd = new Random(seed);
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var live = new HashSet<int>();
        var value = new byte[12_000];
        long allocatedAfterWarmUp = 0;
        const int Rounds = 400;
        for (var round = 0; round < Rounds; round++)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                var list = tx.CreatePostingList("p");
                for (var i = 0; i < 40; i++)
                {
                    var key = rnd.Next(2_000);
                    if (live.Count < 1_000 || rnd.Next(2) == 0)
                    {
                        // A fifth of the values overflow (12 KB), so runs of pages are freed and reused too.
                        tree.Put(Keys.Of(key), value.AsSpan(0, rnd.Next(5) == 0 ? value.Length : rnd.Next(10, 400)));
                        list.Add(key);
                        live.Add(key);
                    }
                    else if (live.Count > 0)
                    {
                        tree.Delete(Keys.Of(key));
                        list.Remove(key);
                        live.Remove(key);
                    }
                }

                tx.Commit();
            }

            if (round == Rounds / 2)
            {
                allocatedAfterWarmUp = Allocated(env);
            }
        }

        var allocated = Allocated(env);
        Assert.True(allocated <= allocatedAfterWarmUp * 1.15, $"seed {seed}: {allocatedAfterWarmUp} bytes allocated halfway, {allocated} at the end; freed pages are not reused");
    });

    /// <summary>Bytes of pages ever allocated: the high-water mark, not the data file, which grows ahead of use.</summary>
    private static long Allocated(StorageEnvironment env) => env.AllocatedPages * 8192;
}
