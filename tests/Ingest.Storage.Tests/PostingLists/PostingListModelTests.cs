using Ingest.Storage.PostingLists;

namespace Ingest.Storage.Tests.PostingLists;

/// <summary>Random sorted batches against a PostingList and a SortedSet, with commits, aborts and reopens.</summary>
public sealed class PostingListModelTests
{
    [Fact]
    public void Random_batches_match_a_sorted_set() => TestSeed.Run(seed => RunModel(seed, 300 * TestSeed.Scale));

    [Fact]
    public void Dense_ids_take_at_most_two_bytes_each_and_read_back_in_order()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        const int n = 2_000_000;
        var ids = new long[n];
        for (var i = 0; i < n; i++)
        {
            ids[i] = i;
        }

        using (var tx = env.BeginWrite())
        {
            var list = tx.CreatePostingList("dense");
            Assert.Equal(new PostingListUpdateResult(n, 0), list.Update(ids, []));
            tx.Commit();
        }

        using var read = env.BeginRead();
        var stored = read.OpenPostingList("dense")!;
        Assert.Equal(n, stored.Count);
        Assert.True(stored.LeafCount * 8192.0 / n <= 2.0, $"{stored.LeafCount} pages for {n} ids");
        var iterator = stored.Iterate();
        Span<long> buffer = stackalloc long[1024];
        long expected = 0;
        for (int got; (got = iterator.Fill(buffer)) > 0;)
        {
            for (var i = 0; i < got; i++)
            {
                Assert.Equal(expected++, buffer[i]);
            }
        }

        Assert.Equal(n, expected);
    }

    [Fact]
    public void The_largest_id_can_be_added_and_removed_when_the_list_has_leaves()
    {
        // long.MaxValue once served as "no next leaf" and was never routed to the last leaf, so
        // Update spun forever on it (seed 2000 of the model test found it).
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var list = tx.CreatePostingList("p");
        list.Update([1, 2, 3], []);

        Assert.Equal(new PostingListUpdateResult(2, 0), list.Update([5, long.MaxValue], []));
        Assert.True(list.Contains(long.MaxValue));
        Assert.Equal(new PostingListUpdateResult(0, 1), list.Update([], [long.MaxValue]));
        Assert.False(list.Contains(long.MaxValue));
        Assert.Equal(4, list.Count);
    }

    [Fact]
    public void Unsorted_input_is_rejected_and_changes_nothing()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var list = tx.CreatePostingList("p");
        list.Update([1, 2, 3], []);

        Assert.Throws<ArgumentException>(() => list.Update([5, 4], []));
        Assert.Throws<ArgumentException>(() => list.Update([], [3, 1]));
        Assert.Throws<ArgumentException>(() => list.Update([-1], []));
        Assert.Equal(3, list.Count);
    }

    [Fact]
    public void Read_transactions_cannot_modify_a_posting_list()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            tx.CreatePostingList("p").Add(7);
            tx.Commit();
        }

        using var read = env.BeginRead();
        var list = read.OpenPostingList("p")!;
        Assert.True(list.Contains(7));
        Assert.Throws<InvalidOperationException>(() => list.Add(8));
    }

    private static void RunModel(int seed, int batches)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var committed = new SortedSet<long>();
        var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        try
        {
            for (var b = 0; b < batches; b++)
            {
                var working = new SortedSet<long>(committed);
                using (var tx = env.BeginWrite())
                {
                    var list = tx.CreatePostingList("ids");
                    var updates = rnd.Next(1, 4);
                    for (var u = 0; u < updates; u++)
                    {
                        var additions = RandomIds(rnd);
                        var removals = rnd.Next(3) == 0 ? RandomSample(rnd, working) : RandomIds(rnd);
                        // The result counts net changes: an id both removed and added that was
                        // present stays, and counts as neither.
                        var expectedAdded = 0L;
                        var expectedRemoved = 0L;
                        foreach (var id in removals)
                        {
                            expectedRemoved += Array.BinarySearch(additions, id) < 0 && working.Remove(id) ? 1 : 0;
                        }

                        foreach (var id in additions)
                        {
                            expectedAdded += working.Add(id) ? 1 : 0;
                        }

                        var result = list.Update(additions, removals);
                        Assert.Equal(expectedAdded, result.Added);
                        Assert.Equal(expectedRemoved, result.Removed);
                        var probe = rnd.NextInt64(0, 300_000);
                        Assert.Equal(working.Contains(probe), list.Contains(probe));
                    }

                    Verify(list, working, rnd);
                    if (rnd.Next(5) == 0)
                    {
                        continue; // abort: dispose without commit
                    }

                    tx.Commit();
                    committed = working;
                }

                if (rnd.Next(20) == 0)
                {
                    env.Dispose();
                    env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
                }

                using var read = env.BeginRead();
                Verify(read.OpenPostingList("ids"), committed, rnd);
            }
        }
        finally
        {
            env.Dispose();
        }
    }

    /// <summary>Sorted, duplicate-free ids, in one of the shapes indexes produce: dense runs, sparse, clustered.</summary>
    private static long[] RandomIds(Random rnd)
    {
        var set = new SortedSet<long>();
        var count = rnd.Next(0, rnd.Next(2) == 0 ? 50 : 5_000);
        switch (rnd.Next(3))
        {
            case 0:
                var start = rnd.NextInt64(0, 250_000);
                for (var i = 0; i < count; i++)
                {
                    set.Add(start + i);
                }

                break;
            case 1:
                for (var i = 0; i < count; i++)
                {
                    set.Add(rnd.NextInt64(0, 300_000));
                }

                break;
            default:
                var center = rnd.NextInt64(0, 300_000);
                for (var i = 0; i < count; i++)
                {
                    set.Add(Math.Max(0, center + rnd.Next(-2_000, 2_000)));
                }

                if (rnd.Next(10) == 0)
                {
                    set.Add(long.MaxValue - rnd.Next(1_000));
                }

                break;
        }

        return [.. set];
    }

    private static long[] RandomSample(Random rnd, SortedSet<long> present)
    {
        var list = new List<long>();
        foreach (var id in present)
        {
            if (rnd.Next(4) == 0)
            {
                list.Add(id);
            }
        }

        return [.. list];
    }

    private static void Verify(PostingList? list, SortedSet<long> expected, Random rnd)
    {
        if (list == null)
        {
            Assert.Empty(expected);
            return;
        }

        var actual = new List<long>(expected.Count);
        var iterator = list.Iterate();
        Span<long> buffer = stackalloc long[PostingListIterator.MinBufferLength];
        for (int n; (n = iterator.Fill(buffer)) > 0;)
        {
            for (var i = 0; i < n; i++)
            {
                actual.Add(buffer[i]);
            }
        }

        Assert.Equal(expected, actual);
        Assert.Equal(expected.Count, list.Count);

        // Seek: the first id at or after a random point, then the rest in order.
        var from = rnd.NextInt64(0, 310_000);
        var seeking = list.Iterate();
        seeking.Seek(from);
        var n2 = seeking.Fill(buffer);
        var firstExpected = expected.GetViewBetween(from, long.MaxValue);
        if (firstExpected.Count == 0)
        {
            Assert.Equal(0, n2);
        }
        else
        {
            Assert.True(n2 > 0);
            Assert.Equal(firstExpected.Min, buffer[0]);
        }
    }
}
