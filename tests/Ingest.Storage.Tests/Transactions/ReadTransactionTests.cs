namespace Ingest.Storage.Tests.Transactions;

public sealed class ReadTransactionTests
{
    [Fact]
    public void Beginning_and_disposing_a_read_transaction_allocates_nothing()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of(1), [1]);
            tx.Commit();
        }

        for (var i = 0; i < 1000; i++)
        {
            using var warm = env.BeginRead();
        }

        long sum = 0;
        var allocated = ThreadAllocations.Measure(() =>
        {
            sum = 0;
            for (var i = 0; i < 100_000; i++)
            {
                using var read = env.BeginRead();
                sum += read.TransactionId;
            }
        });

        Assert.Equal(0, allocated);
        Assert.Equal(100_000, sum);
    }

    [Fact]
    public void Point_reads_allocate_nothing()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var keys = Enumerable.Range(0, 5000).Select(Keys.Of).ToArray();
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            foreach (var k in keys)
            {
                t.Put(k, k);
            }

            tx.Commit();
        }

        using var read = env.BeginRead();
        var tree = read.OpenTree("t")!;

        // A first pass lets tiered compilation (and on-stack replacement of this very loop) settle:
        // the JIT may allocate on the calling thread while it compiles, which is not the engine's doing.
        Assert.Equal(keys.Length, CountFound(tree, keys));
        var found = 0;
        var allocated = ThreadAllocations.Measure(() => found = CountFound(tree, keys));

        Assert.Equal(0, allocated);
        Assert.Equal(keys.Length, found);
    }

    private static int CountFound(Ingest.Storage.Trees.Tree tree, byte[][] keys)
    {
        var found = 0;
        foreach (var k in keys)
        {
            if (tree.TryGet(k, out var v) && v.Length == k.Length)
            {
                found++;
            }
        }

        return found;
    }

    [Fact]
    public void Opening_a_tree_in_a_read_transaction_allocates_only_the_tree_object()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of(1), [1]);
            tx.Commit();
        }

        for (var i = 0; i < 100; i++)
        {
            using var warm = env.BeginRead();
            warm.OpenTree("t");
        }

        var key = Keys.Of(1);
        var allocated = ThreadAllocations.Measure(() =>
        {
            for (var i = 0; i < 1000; i++)
            {
                using var read = env.BeginRead();
                Assert.True(read.OpenTree("t")!.TryGet(key, out _));
            }
        });

        var perOpen = allocated / 1000.0;
        Assert.True(perOpen <= 96, $"{perOpen} bytes per OpenTree");
    }

    [Fact]
    public void Many_named_trees_coexist()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var tx = env.BeginWrite();
            for (var i = 0; i < 50; i++)
            {
                tx.CreateTree($"tree-{i}").Put(Keys.Of("k"), Keys.Of(i));
                tx.CreateFixedSizeTree($"fixed-{i}", 4).Put(i, BitConverter.GetBytes(i));
            }

            tx.Commit();
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var read = env.BeginRead();
            for (var i = 0; i < 50; i++)
            {
                Assert.True(read.OpenTree($"tree-{i}")!.TryGet(Keys.Of("k"), out var v));
                Assert.Equal(Keys.Of(i), v.ToArray());
                Assert.True(read.OpenFixedSizeTree($"fixed-{i}")!.TryGet(i, out var f));
                Assert.Equal(i, BitConverter.ToInt32(f));
            }
        }
    }
}
