namespace Ingest.Storage.Tests.FixedSizeTrees;

public sealed class FixedSizeTreeTests
{
    [Fact]
    public void A_set_of_a_million_ids_splits_scans_and_shrinks_back()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        const int n = 300_000;
        using (var tx = env.BeginWrite())
        {
            var set = tx.CreateFixedSizeTree("set", 0);
            for (long i = 0; i < n; i++)
            {
                set.Add(i * 3);
            }

            Assert.Equal(n, set.Count);
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var set = read.OpenFixedSizeTree("set")!;
            Assert.True(set.Contains(2997));
            Assert.False(set.Contains(2998));
            var c = set.CreateCursor();
            Assert.True(c.Seek(10));
            Assert.Equal(12, c.Key);
            Assert.True(c.MovePrev());
            Assert.Equal(9, c.Key);
            Assert.True(c.Last());
            Assert.Equal((n - 1) * 3L, c.Key);
        }

        using (var tx = env.BeginWrite())
        {
            var set = tx.OpenFixedSizeTree("set")!;
            for (long i = 0; i < n; i++)
            {
                Assert.True(set.Delete(i * 3));
            }

            Assert.Equal(0, set.Count);
            Assert.False(set.CreateCursor().First());
            tx.Commit();
        }
    }

    [Fact]
    public void Wrong_value_size_is_rejected()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var t = tx.CreateFixedSizeTree("f", 8);
        Assert.Throws<ArgumentException>(() => t.Put(1, new byte[4]));
        Assert.Throws<InvalidOperationException>(() => tx.CreateFixedSizeTree("f", 4));
        Assert.Throws<InvalidOperationException>(() => tx.OpenTree("f"));
    }
}
