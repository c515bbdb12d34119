using Ingest.Storage.FixedSizeTrees;
using Ingest.Testing;

namespace Ingest.Storage.Tests.FixedSizeTrees;

/// <summary><see cref="FixedSizeTree.GetSorted"/> (one forward walk for ascending keys) against a point lookup per key.</summary>
public sealed class FixedSizeTreeGetSortedTests
{
    [Theory]
    [InlineData(8, 60_000)] // two levels: ~120 leaves under the root
    [InlineData(200, 30_000)] // three levels: 39 entries per leaf, ~770 leaves, two branch levels
    [InlineData(0, 20_000)] // a set: only the count is read
    public void Ascending_lookups_match_point_lookups(int valueSize, int keys) => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var model = new SortedDictionary<long, byte[]>();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateFixedSizeTree("column", valueSize);
            ModeledFixedSizeTree.PutAscending(tree, model, random, keys, r => r.Next(1, r.Next(2) == 0 ? 3 : 40));

            // Deletes leave underfull and merged leaves, as an index's removed entries do.
            foreach (var k in model.Keys.Where(_ => random.Next(4) == 0).ToList())
            {
                Assert.True(tree.Delete(k));
                model.Remove(k);
            }

            tree.Put(long.MaxValue, new byte[valueSize]);
            model[long.MaxValue] = new byte[valueSize];
            Check(tree, model, random); // the writer's own pages
            tx.Commit();
        }

        using var read = env.BeginRead();
        var committed = read.OpenFixedSizeTree("column")!;
        for (var round = 0; round < 20; round++)
        {
            Check(committed, model, random);
        }
    });

    [Fact]
    public void A_tree_that_is_one_leaf_answers_and_leaves_missing_keys_untouched()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateFixedSizeTree("column", 8);
        tree.Put(5, BitConverter.GetBytes(50L));
        tree.Put(7, BitConverter.GetBytes(70L));
        var values = new long[] { -1, -1, -1, -1 };
        var found = tree.GetSorted([1, 5, 6, 7], System.Runtime.InteropServices.MemoryMarshal.AsBytes(values.AsSpan()));
        Assert.Equal(2, found);
        Assert.Equal([-1, 50, -1, 70], values);
        Assert.Equal(0, tree.GetSorted([], []));
    }

    [Fact]
    public void Descending_keys_and_a_wrong_value_length_are_refused()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateFixedSizeTree("column", 8);
        tree.Put(1, new byte[8]);
        var error = Assert.Throws<ArgumentException>(() => tree.GetSorted([3, 2], new byte[16]));
        Assert.Contains("Keys must ascend: 2 follows 3", error.Message, StringComparison.Ordinal);
        error = Assert.Throws<ArgumentException>(() => tree.GetSorted([1, 2], new byte[8]));
        Assert.Contains("16 bytes are needed for 2 keys, not 8", error.Message, StringComparison.Ordinal);
    }

    /// <summary>A random ascending batch: stored keys, absent keys between and beyond them, repeats, the extremes.</summary>
    private static void Check(FixedSizeTree tree, SortedDictionary<long, byte[]> model, Random random)
    {
        var stored = model.Keys.ToArray();
        var batch = new List<long>();
        var density = random.Next(1, 200); // 1 in density stored keys: from every key to long gaps between leaves
        foreach (var key in stored)
        {
            if (random.Next(density) == 0)
            {
                batch.Add(key);
            }

            if (random.Next(density * 4) == 0)
            {
                batch.Add(key + 1); // usually absent
                batch.Add(key + 1); // a repeat
            }
        }

        batch.Add(long.MinValue);
        batch.Add(long.MaxValue);
        batch.Sort();
        var keys = batch.ToArray();
        var size = tree.ValueSize;
        var values = new byte[keys.Length * size];
        values.AsSpan().Fill(0xA5);
        var found = tree.GetSorted(keys, values);
        var expected = 0;
        for (var i = 0; i < keys.Length; i++)
        {
            var has = tree.TryGet(keys[i], out var value);
            Assert.Equal(model.ContainsKey(keys[i]), has);
            expected += has ? 1 : 0;
            var actual = values.AsSpan(i * size, size);
            if (has)
            {
                Assert.True(actual.SequenceEqual(value), $"key {keys[i]} (#{i} of {keys.Length})");
            }
            else
            {
                Assert.True(actual.IndexOfAnyExcept((byte)0xA5) < 0, $"absent key {keys[i]} changed its value bytes");
            }
        }

        Assert.Equal(expected, found);
    }
}
