using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

public sealed class TreeTests
{
    [Fact]
    public void Put_then_get_in_same_and_later_transactions()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(Keys.Of("a"), Keys.Of("1"));
            tree.Put(Keys.Of("b"), Keys.Of("2"));
            Assert.True(tree.TryGet(Keys.Of("a"), out var v));
            Assert.Equal("1", Keys.Text(v));
            tx.Commit();
        }

        using var read = env.BeginRead();
        var t = read.OpenTree("t");
        Assert.NotNull(t);
        Assert.Equal(2, t.Count);
        Assert.True(t.TryGet(Keys.Of("b"), out var b));
        Assert.Equal("2", Keys.Text(b));
        Assert.False(t.TryGet(Keys.Of("c"), out _));
        Assert.Null(read.OpenTree("missing"));
    }

    [Fact]
    public void Many_keys_split_and_scan_in_order_both_ways()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        const int n = 20_000;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            var rnd = new Random(1);
            foreach (var i in Enumerable.Range(0, n).OrderBy(_ => rnd.Next()))
            {
                tree.Put(Keys.Of(i), BitConverter.GetBytes(i));
            }

            tx.Commit();
        }

        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        Assert.Equal(n, t.Count);
        var c = t.CreateCursor();
        var expected = 0;
        for (var ok = c.First(); ok; ok = c.MoveNext())
        {
            Assert.Equal(Keys.Of(expected), c.Key.ToArray());
            Assert.Equal(expected, BitConverter.ToInt32(c.Value));
            expected++;
        }

        Assert.Equal(n, expected);
        for (var ok = c.Last(); ok; ok = c.MovePrev())
        {
            expected--;
            Assert.Equal(Keys.Of(expected), c.Key.ToArray());
        }

        Assert.Equal(0, expected);
        Assert.True(c.Seek(Keys.Of("key/00000100x")));
        Assert.Equal(Keys.Of(101), c.Key.ToArray());
        Assert.False(c.Seek(Keys.Of("zzz")));
    }

    [Fact]
    public void Large_values_use_overflow_pages_and_are_freed()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var big = new byte[100_000];
        new Random(2).NextBytes(big);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(Keys.Of("big"), big);
            tree.Put(Keys.Of("small"), Keys.Of("x"));
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t")!.TryGet(Keys.Of("big"), out var v));
            Assert.True(v.SequenceEqual(big));
        }

        env.FlushNow();
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t")!.TryGet(Keys.Of("big"), out var v));
            Assert.True(v.SequenceEqual(big));
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t")!;
            Assert.True(tree.Delete(Keys.Of("big")));
            tree.Put(Keys.Of("big2"), big);
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var t = read.OpenTree("t")!;
            Assert.False(t.TryGet(Keys.Of("big"), out _));
            Assert.True(t.TryGet(Keys.Of("big2"), out var v));
            Assert.True(v.SequenceEqual(big));
        }
    }

    [Fact]
    public void Deleting_most_keys_merges_pages_and_frees_them_for_reuse()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        const int n = 20_000;
        var value = new byte[100];
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < n; i++)
            {
                tree.Put(Keys.Of(i), value);
            }

            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t")!;
            for (var i = 0; i < n; i++)
            {
                if (i % 10 != 0)
                {
                    Assert.True(tree.Delete(Keys.Of(i)));
                }
            }

            Assert.Equal(n / 10, tree.Count);
            tx.Commit();
        }

        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        var c = t.CreateCursor();
        var seen = 0;
        for (var ok = c.First(); ok; ok = c.MoveNext())
        {
            Assert.Equal(Keys.Of(seen * 10), c.Key.ToArray());
            seen++;
        }

        Assert.Equal(n / 10, seen);
        Assert.True(TreeStats.LeafPages(t) < 90, $"leaf pages: {TreeStats.LeafPages(t)}");
    }

    [Fact]
    public void DeleteSorted_removes_exactly_the_given_keys()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        const int n = 30_000;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < n; i++)
            {
                tree.Put(Keys.Of(i), BitConverter.GetBytes(i));
            }

            tx.Commit();
        }

        var rnd = new Random(3);
        var toDelete = Enumerable.Range(0, n + 100).Where(_ => rnd.Next(2) == 0).Select(Keys.Of).ToArray();
        var deletedSet = toDelete.Select(k => Keys.Text(k)).ToHashSet();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t")!;
            var removed = tree.DeleteSorted(toDelete);
            Assert.Equal(toDelete.Count(k => deletedSet.Contains(Keys.Text(k)) && int.Parse(Keys.Text(k)[4..], System.Globalization.CultureInfo.InvariantCulture) < n), removed);
            tx.Commit();
        }

        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        for (var i = 0; i < n; i++)
        {
            Assert.Equal(!deletedSet.Contains(Keys.Text(Keys.Of(i))), t.TryGet(Keys.Of(i), out _));
        }

        var c = t.CreateCursor();
        long count = 0;
        for (var ok = c.First(); ok; ok = c.MoveNext())
        {
            count++;
        }

        Assert.Equal(t.Count, count);
    }

    [Fact]
    public void DeleteSorted_rejects_unsorted_keys()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(Keys.Of(1), [1]);
        tree.Put(Keys.Of(2), [2]);
        Assert.Throws<ArgumentException>(() => tree.DeleteSorted([Keys.Of(2), Keys.Of(1)]));
    }

    [Fact]
    public void Keys_up_to_max_size_work_and_longer_keys_are_rejected()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < 300; i++)
        {
            var key = new byte[Tree.MaxKeySize];
            BitConverter.TryWriteBytes(key.AsSpan(Tree.MaxKeySize - 4), i);
            key.AsSpan(Tree.MaxKeySize - 4).Reverse();
            tree.Put(key, new byte[i * 10]);
        }

        Assert.Equal(300, tree.Count);
        Assert.Throws<ArgumentException>(() => tree.Put(new byte[Tree.MaxKeySize + 1], [1]));
        tx.Commit();
    }

    [Fact]
    public void Values_and_keys_read_from_the_tree_can_be_written_back_into_it()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var big = new byte[50_000];
        new Random(9).NextBytes(big);
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(Keys.Of("big"), big);
        for (var i = 0; i < 200; i++)
        {
            tree.Put(Keys.Of(i), Keys.Of(i));
        }

        // Same key, value read from its own overflow run, different length: the old run is freed only after the copy.
        Assert.True(tree.TryGet(Keys.Of("big"), out var v));
        tree.Put(Keys.Of("big"), v[..40_000]);
        Assert.True(tree.TryGet(Keys.Of("big"), out v));
        Assert.True(v.SequenceEqual(big.AsSpan(0, 40_000)));

        // A key and value taken from a cursor, written under a new key and a longer value.
        var cursor = tree.CreateCursor();
        Assert.True(cursor.Seek(Keys.Of(100)));
        var copyKey = cursor.Key.ToArray();
        tree.Put(cursor.Key[..^1], cursor.Value);
        Assert.True(tree.TryGet(copyKey.AsSpan(0, copyKey.Length - 1), out var copied));
        Assert.Equal(Keys.Of(100), copied.ToArray());
        tx.Commit();
    }
}
