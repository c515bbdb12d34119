namespace Ingest.Storage.Tests.Trees;

/// <summary><c>Tree.Put(key, value, previous)</c>: one descent that also reports the value it replaced.</summary>
public sealed class TreePutPreviousTests
{
    [Fact]
    public void A_new_key_returns_minus_one_and_leaves_the_buffer_alone()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        var previous = new byte[] { 7, 7, 7 };
        Assert.Equal(-1, tree.Put(Keys.Of("a"), Keys.Of("1"), previous));
        Assert.Equal(new byte[] { 7, 7, 7 }, previous);
        Assert.Equal(1, tree.Count);
        Assert.True(tree.TryGet(Keys.Of("a"), out var v));
        Assert.Equal("1", Keys.Text(v));
    }

    [Fact]
    public void Replacing_reports_the_old_value_whatever_its_size_and_keeps_the_count()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var big = new byte[100_000];
        new Random(3).NextBytes(big);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(Keys.Of("same"), Keys.Of("old1"));
            tree.Put(Keys.Of("grows"), Keys.Of("ab"));
            tree.Put(Keys.Of("overflow"), big);
            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            var previous = new byte[16];

            // Same length: the value is overwritten in place.
            Assert.Equal(4, tree.Put(Keys.Of("same"), Keys.Of("new1"), previous));
            Assert.Equal("old1", Keys.Text(previous.AsSpan(0, 4)));

            // A longer value: the entry is removed and inserted again.
            Assert.Equal(2, tree.Put(Keys.Of("grows"), Keys.Of("abcdef"), previous));
            Assert.Equal("ab", Keys.Text(previous.AsSpan(0, 2)));

            // An overflow value: its full length, and as much of it as the buffer holds, read before its pages are freed.
            Assert.Equal(big.Length, tree.Put(Keys.Of("overflow"), Keys.Of("small"), previous));
            Assert.Equal(big.AsSpan(0, previous.Length).ToArray(), previous);

            // No buffer: only the length.
            Assert.Equal(6, tree.Put(Keys.Of("grows"), Keys.Of("xyzxyz"), default));
            Assert.Equal(3, tree.Count);
            tx.Commit();
        }

        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        Assert.Equal(3, t.Count);
        Assert.True(t.TryGet(Keys.Of("same"), out var same));
        Assert.Equal("new1", Keys.Text(same));
        Assert.True(t.TryGet(Keys.Of("grows"), out var grows));
        Assert.Equal("xyzxyz", Keys.Text(grows));
        Assert.True(t.TryGet(Keys.Of("overflow"), out var overflow));
        Assert.Equal("small", Keys.Text(overflow));
    }

    [Fact]
    public void Many_random_puts_report_exactly_what_a_lookup_before_each_would_find()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var model = new Dictionary<int, int>();
        var rnd = new Random(11);
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        Span<byte> previous = stackalloc byte[4];
        for (var i = 0; i < 20_000; i++)
        {
            var k = rnd.Next(5_000); // repeats: about three puts per key, through splits
            var replaced = tree.Put(Keys.Of(k), BitConverter.GetBytes(i), previous);
            if (model.TryGetValue(k, out var old))
            {
                Assert.Equal(4, replaced);
                Assert.Equal(old, BitConverter.ToInt32(previous));
            }
            else
            {
                Assert.Equal(-1, replaced);
            }

            model[k] = i;
        }

        Assert.Equal(model.Count, tree.Count);
    }
}
