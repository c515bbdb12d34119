using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

/// <summary>
/// <see cref="Tree.DeleteSorted(ReadOnlySpan{byte[]})"/> against a SortedDictionary: batches with absent
/// keys, every other key, runs that empty whole leaves and parents, every key, single keys; trees from
/// a lone root leaf to three levels and more; overflow values; then commit, abort, reopen or crash and recover.
/// After every batch each page is either reachable or free (a merge or a dropped leaf loses none).
/// </summary>
public sealed class TreeDeleteSortedModelTests
{
    [Fact]
    public void Sorted_deletes_on_a_root_leaf_match_a_sorted_dictionary() =>
        TestSeed.Run(seed => RunModel(seed, rounds: 40 * TestSeed.Scale, keys: 24, longKeys: false, depth: 1));

    [Fact]
    public void Sorted_deletes_on_a_two_level_tree_match_a_sorted_dictionary() =>
        TestSeed.Run(seed => RunModel(seed, rounds: 30 * TestSeed.Scale, keys: 5_000, longKeys: false, depth: 2));

    [Fact]
    public void Sorted_deletes_on_a_deep_tree_match_a_sorted_dictionary() =>
        TestSeed.Run(seed => RunModel(seed, rounds: 16 * TestSeed.Scale, keys: 4_000, longKeys: true, depth: 3));

    [Fact]
    public void Keys_out_of_order_or_repeated_throw_before_anything_is_removed()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < 3_000; i++)
        {
            tree.Put(Keys.Of(i), [1, 2, 3]);
        }

        // The bad pair sits at the end, after keys of many leaves that a pass would already have removed.
        var repeated = Enumerable.Range(0, 3_000).Where(i => i % 2 == 0).Select(Keys.Of).Append(Keys.Of(2_998)).ToArray();
        var descending = Enumerable.Range(0, 3_000).Where(i => i % 2 == 0).Select(Keys.Of).Append(Keys.Of(10)).ToArray();

        var error = Assert.Throws<ArgumentException>(() => tree.DeleteSorted(repeated));
        Assert.Contains("ascending", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => tree.DeleteSorted(descending));

        Assert.Equal(3_000, tree.Count);
        for (var i = 0; i < 3_000; i++)
        {
            Assert.True(tree.ContainsKey(Keys.Of(i)), $"key {i} was removed by a rejected batch");
        }
    }

    [Fact]
    public void Deleting_every_key_leaves_one_empty_root_leaf_and_frees_every_other_page()
    {
        using var dir = new TestDirectory();
        // Long keys: few children per branch, so the tree has three levels.
        var all = Enumerable.Range(0, 20_000).Select(i => Keys.Of($"key/{i:D8}/".PadRight(300, 'x'))).ToArray();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                foreach (var key in all)
                {
                    tree.Put(key, new byte[(key[11] % 3) == 0 ? 3_000 : 40]); // some overflow values
                }

                tx.Commit();
            }

            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree("t")!;
                Assert.True(TreeStats.Depth(tree) >= 3, $"depth {TreeStats.Depth(tree)}");

                Assert.Equal(all.Length, tree.DeleteSorted(all));

                Assert.Equal(0, tree.Count);
                Assert.Equal(1, TreeStats.Depth(tree));
                TreeStats.AssertEveryPageAccountedFor(tree);
                tree.Put(all[7], [9]);
                Assert.True(tree.TryGet(all[7], out var v) && v.SequenceEqual(new byte[] { 9 }));
                tx.Commit();
            }
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var read = env.BeginRead();
            var tree = read.OpenTree("t")!;
            Assert.Equal(1, tree.Count);
            Assert.True(env.Verify().IsClean);
        }
    }

    [Fact]
    public void A_dense_sorted_delete_merges_neighbouring_leaves_but_keeps_room_in_them()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < 30_000; i++)
        {
            tree.Put(Keys.Of(i), new byte[20]);
        }

        var before = TreeStats.LeafPages(tree);
        var removals = Enumerable.Range(0, 30_000).Where(i => i % 3 != 0).Select(Keys.Of).ToArray();

        Assert.Equal(removals.Length, tree.DeleteSorted(removals));

        // A third of each leaf is left: pairs of them fit in three quarters of a page, triples do not.
        var after = TreeStats.LeafPages(tree);
        Assert.InRange(after, before / 3, before * 6 / 10);
        Assert.Equal(10_000, tree.Count);
        TreeStats.AssertEveryPageAccountedFor(tree);
        tree.Put(Keys.Of(1), [1]); // the tree still takes inserts where keys went
        Assert.True(tree.ContainsKey(Keys.Of(1)));
    }

    private static void RunModel(int seed, int rounds, int keys, bool longKeys, int depth)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var keySpace = Enumerable.Range(0, keys * 2).Select(_ => MakeKey(rnd, longKeys)).DistinctBy(Convert.ToHexString).ToArray();
        var committed = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
        try
        {
            for (var round = 0; round < rounds; round++)
            {
                var working = new SortedDictionary<byte[], byte[]>(committed, ByteArrayComparer.Instance);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree("model");
                    Refill(rnd, tree, working, keySpace, keys);
                    if (round == 0)
                    {
                        Assert.True(TreeStats.Depth(tree) >= depth, $"depth {TreeStats.Depth(tree)}, wanted {depth}");
                    }

                    for (var step = rnd.Next(1, 4); step > 0; step--)
                    {
                        var batch = PickBatch(rnd, working, keySpace);
                        var removed = batch.Count(working.Remove);
                        Assert.Equal(removed, tree.DeleteSorted(batch));
                        TreeModelTests.Verify(tree, working);
                        TreeStats.AssertEveryPageAccountedFor(tree);
                    }

                    if (rnd.Next(6) == 0)
                    {
                        continue; // abort
                    }

                    tx.Commit();
                    committed = working;
                }

                env = TreeModelTests.Disturb(rnd, env, dir, outOf: 6);

                using var read = env.BeginRead();
                TreeModelTests.Verify(read.OpenTree("model")!, committed);
            }

            Assert.True(env.Verify().IsClean);
        }
        finally
        {
            env.Dispose();
        }
    }

    /// <summary>Puts random keys until the tree holds about <paramref name="target"/> entries again.</summary>
    private static void Refill(Random rnd, Tree tree, SortedDictionary<byte[], byte[]> model, byte[][] keySpace, int target)
    {
        for (var attempts = 0; model.Count < target && attempts < target * 4; attempts++)
        {
            var key = keySpace[rnd.Next(keySpace.Length)];
            var value = new byte[rnd.Next(40) == 0 ? rnd.Next(2_500, 12_000) : rnd.Next(0, 120)];
            rnd.NextBytes(value);
            tree.Put(key, value);
            model[key] = value;
        }
    }

    /// <summary>A sorted batch of present and absent keys, shaped to hit one of the pass's cases.</summary>
    private static byte[][] PickBatch(Random rnd, SortedDictionary<byte[], byte[]> model, byte[][] keySpace)
    {
        var present = model.Keys.ToArray();
        IEnumerable<byte[]> batch = rnd.Next(8) switch
        {
            0 => present,                                                        // everything
            1 => present.Where((_, i) => i % 2 == 0),                            // every other key
            2 => present.Where(_ => rnd.Next(3) != 0),                           // dense
            3 => present.Where(_ => rnd.Next(30) == 0),                          // sparse
            4 => Run(rnd, present),                                              // empties leaves, maybe parents
            5 => present.Length == 0 ? [] : [present[rnd.Next(present.Length)]], // one key
            6 => keySpace.Where(_ => rnd.Next(4) == 0),                          // half of them absent
            _ => Run(rnd, present).Concat(present.Where(_ => rnd.Next(5) == 0)), // a run and more
        };

        // Absent keys mixed in: some of the key space is not in the tree, and some keys are made up.
        var absent = keySpace.Where(k => !model.ContainsKey(k) && rnd.Next(10) == 0)
            .Concat(Enumerable.Range(0, rnd.Next(20)).Select(_ => MakeKey(rnd, longKeys: false)));
        return [.. batch.Concat(absent).DistinctBy(Convert.ToHexString).Order(ByteArrayComparer.Instance)];
    }

    private static IEnumerable<byte[]> Run(Random rnd, byte[][] present)
    {
        if (present.Length == 0)
        {
            return [];
        }

        var start = rnd.Next(present.Length);
        return present[start..Math.Min(present.Length, start + rnd.Next(1, present.Length))];
    }

    private static byte[] MakeKey(Random rnd, bool longKeys)
    {
        // Long keys make branches hold few children, so a few thousand keys give a three-level tree.
        var key = new byte[longKeys ? rnd.Next(300, 700) : rnd.Next(20) == 0 ? rnd.Next(60, 300) : rnd.Next(1, 30)];
        rnd.NextBytes(key);
        if (key.Length >= 6 && rnd.Next(2) == 0)
        {
            "users/"u8.CopyTo(key); // shared prefixes are common
        }

        return key;
    }
}
