namespace Ingest.Storage.Tests.Trees;

/// <summary>The engine's counters on <see cref="Trees.Tree.DeleteSorted(ReadOnlySpan{byte[]})"/>: one descent per leaf, not per key.</summary>
public sealed class TreeSortedDeleteVisitTests
{
    private const int Keys = 20_000;

    [Fact]
    public void Sorted_delete_descends_once_per_leaf_and_one_by_one_once_per_key()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var fill = env.BeginWrite())
        {
            var tree = fill.CreateTree("t");
            for (var i = 0; i < Keys; i++)
            {
                tree.Put(Tests.Keys.Of(i), [1, 2, 3, 4]);
            }

            fill.Commit();
        }

        var removals = Enumerable.Range(0, Keys).Where(i => i % 4 == 0).Select(Tests.Keys.Of).ToArray();
        long leaves;
        TransactionCounters sorted;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t")!;
            leaves = TreeStats.LeafPages(tree);
            var before = tx.Counters;
            Assert.Equal(removals.Length, tree.DeleteSorted(removals));
            sorted = tx.Counters.Since(before);
        }

        TransactionCounters oneByOne;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t")!;
            var before = tx.Counters;
            foreach (var key in removals)
            {
                Assert.True(tree.Delete(key));
            }

            oneByOne = tx.Counters.Since(before);
        }

        Assert.True(leaves > 20, $"{leaves} leaves");
        Assert.InRange(sorted.Descents, 1, leaves);
        Assert.True(oneByOne.Descents >= removals.Length, $"{oneByOne.Descents} descents for {removals.Length} deletes");
        Assert.True(sorted.PageAccesses * 10 < oneByOne.PageAccesses, $"sorted {sorted}, one by one {oneByOne}");
    }
}
