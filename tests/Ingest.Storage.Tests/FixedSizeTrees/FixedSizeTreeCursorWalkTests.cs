using Ingest.Storage.FixedSizeTrees;
using Ingest.Testing;

namespace Ingest.Storage.Tests.FixedSizeTrees;

/// <summary>
/// The cursor keeps its leaf's address between steps: long walks across many leaves, in both directions, after deletes
/// that leave underfull and merged leaves, from seeks before, between and past the keys; in the writer (whose pages are
/// copies that move when modified) and in a read snapshot taken before later writes.
/// </summary>
public sealed class FixedSizeTreeCursorWalkTests
{
    [Theory]
    [InlineData(8, 40_000)] // ~500 entries per leaf: two levels
    [InlineData(200, 12_000)] // 39 entries per leaf: three levels
    [InlineData(0, 30_000)] // a set
    public void Walks_across_leaves_match_the_model(int valueSize, int keys) => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var model = new SortedDictionary<long, byte[]>();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateFixedSizeTree("column", valueSize);
            ModeledFixedSizeTree.PutAscending(tree, model, random, keys, r => r.Next(1, 5));

            tx.Commit();
        }

        using var before = env.BeginRead();
        var beforeModel = new SortedDictionary<long, byte[]>(model);
        for (var round = 0; round < 4; round++)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenFixedSizeTree("column")!;

                // Runs of deletes empty whole leaves (which merge away) and leave others nearly empty.
                var all = model.Keys.ToList();
                var start = random.Next(all.Count);
                var run = random.Next(1, 3_000);
                for (var i = start; i < Math.Min(all.Count, start + run); i++)
                {
                    Assert.True(tree.Delete(all[i]));
                    model.Remove(all[i]);
                }

                foreach (var k in all.Where(_ => random.Next(3) == 0))
                {
                    tree.Delete(k);
                    model.Remove(k);
                }

                for (var i = 0; i < 500; i++)
                {
                    ModeledFixedSizeTree.Put(tree, model, random.NextInt64(-2_000, (long)keys * 5), random);
                }

                Walk(tree, model, random); // the writer's own, modified pages
                Assert.Throws<InvalidOperationException>(() => ModifyUnderCursor(tree, model));
                tx.Commit();
            }

            using var read = env.BeginRead();
            Walk(read.OpenFixedSizeTree("column")!, model, random);
        }

        Walk(before.OpenFixedSizeTree("column")!, beforeModel, random); // its pages outlived four commits
    });

    private static void Walk(FixedSizeTree tree, SortedDictionary<long, byte[]> model, Random random)
    {
        var cursor = tree.CreateCursor();
        var keys = model.Keys.ToList();

        // Every entry forward, then backward.
        var ok = cursor.First();
        foreach (var k in keys)
        {
            Assert.True(ok);
            Assert.Equal(k, cursor.Key);
            Assert.True(cursor.Value.SequenceEqual(model[k]));
            ok = cursor.MoveNext();
        }

        Assert.False(ok);
        Assert.False(cursor.IsValid);
        ok = cursor.Last();
        for (var i = keys.Count - 1; i >= 0; i--)
        {
            Assert.True(ok);
            Assert.Equal(keys[i], cursor.Key);
            ok = cursor.MovePrev();
        }

        Assert.False(ok);

        // Seeks anywhere (before the first key, into gaps, past the last), then steps both ways across leaf edges.
        for (var s = 0; s < 50; s++)
        {
            var target = random.NextInt64(keys[0] - 10, keys[^1] + 10);
            var at = keys.BinarySearch(target);
            at = at < 0 ? ~at : at;
            ok = cursor.Seek(target);
            Assert.Equal(at < keys.Count, ok);
            if (!ok)
            {
                Assert.Throws<InvalidOperationException>(() => cursor.Key);
                continue;
            }

            var i = at;
            for (var step = random.Next(1, 1_500); step > 0 && i < keys.Count; step--, i++)
            {
                Assert.True(ok);
                Assert.Equal(keys[i], cursor.Key);
                Assert.True(cursor.Value.SequenceEqual(model[keys[i]]));
                ok = cursor.MoveNext();
            }

            Assert.Equal(i < keys.Count, ok);
            if (ok)
            {
                for (var back = random.Next(1, 1_500); back > 0 && i > 0; back--)
                {
                    Assert.True(cursor.MovePrev());
                    i--;
                    Assert.Equal(keys[i], cursor.Key);
                }
            }
        }

        // Blocks of entries (Fill) from the first key and from seeks, in blocks smaller and larger than a leaf.
        for (var s = 0; s < 6; s++)
        {
            var target = s == 0 ? long.MinValue : random.NextInt64(keys[0] - 10, keys[^1] + 10);
            var at = keys.BinarySearch(target);
            at = at < 0 ? ~at : at;
            var block = s % 2 == 0 ? random.Next(1, 40) : random.Next(600, 3_000);
            var blockKeys = new long[block];
            var blockValues = new byte[block * tree.ValueSize];
            Assert.Equal(at < keys.Count, cursor.Seek(target));
            for (int n; (n = cursor.Fill(blockKeys, blockValues)) > 0;)
            {
                Assert.True(n == block || at + n == keys.Count, $"a short block ({n} of {block}) before the end");
                for (var i = 0; i < n; i++, at++)
                {
                    Assert.Equal(keys[at], blockKeys[i]);
                    Assert.True(blockValues.AsSpan(i * tree.ValueSize, tree.ValueSize).SequenceEqual(model[keys[at]]));
                }
            }

            Assert.Equal(keys.Count, at);
            Assert.False(cursor.IsValid);
        }

        Assert.False(cursor.Seek(keys[^1] + 1));
        Assert.Equal(0, cursor.Fill(new long[4], new byte[4 * tree.ValueSize]));
        Assert.False(cursor.Seek(long.MaxValue) && keys[^1] != long.MaxValue);
    }

    /// <summary>A cursor whose tree changed under it throws rather than read the leaf it kept (MoveNext is checked by the model test).</summary>
    private static void ModifyUnderCursor(FixedSizeTree tree, SortedDictionary<long, byte[]> model)
    {
        var cursor = tree.CreateCursor();
        Assert.True(cursor.First());
        var first = cursor.Key;
        Assert.True(tree.Delete(first));
        var value = model[first];
        model.Remove(first);
        tree.Put(first, value);
        model[first] = value;
        _ = cursor.Fill(new long[4], new byte[4 * tree.ValueSize]);
    }
}
