using Ingest.Storage.Tests.Journal;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

/// <summary>
/// A sorted delete asks for the next leaves of its parent before it reaches them. Asking must not read them the way
/// the tree does (checksum on first use): a damaged leaf the batch never reaches must not fail the batch.
/// </summary>
public sealed unsafe class TreeDeleteSortedPrefetchTests
{
    [Fact]
    public void A_damaged_leaf_after_the_last_one_a_sorted_delete_reaches_does_not_fail_it()
    {
        using var dir = new TestDirectory();
        long damaged;
        byte[][] firstLeafKeys;
        byte[] damagedKey;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                for (var i = 0; i < 2_000; i++)
                {
                    tree.Put(Keys.Of(i), new byte[200]);
                }

                tx.Commit();
            }

            using var read = env.BeginRead();
            var t = read.OpenTree("t")!;
            var root = t.Pages.Read(t.RootPage);
            Assert.False(TreePage.IsLeaf(root));
            Assert.True(TreePage.GetCount(root) > 4, "the root must have several leaves under it");
            var first = t.Pages.Read(TreePage.BranchChild(TreePage.Entry(root, 0)));
            Assert.True(TreePage.IsLeaf(first));
            firstLeafKeys = [TreePage.LeafKey(TreePage.Entry(first, 0)).ToArray(), TreePage.LeafKey(TreePage.Entry(first, 1)).ToArray()];
            damaged = TreePage.BranchChild(TreePage.Entry(root, 1)); // the next leaf: what the pass prefetches
            damagedKey = TreePage.LeafKey(TreePage.Entry(t.Pages.Read(damaged), 0)).ToArray();
        }

        RecoveryTests.Flip(dir.DataFile, (damaged * 8192) + 6000);

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = reopened.BeginWrite())
        {
            Assert.Equal(2, tx.OpenTree("t")!.DeleteSorted(firstLeafKeys));
            tx.Commit();
        }

        Assert.Null(reopened.Corruption);
        using var after = reopened.BeginRead();
        var reopenedTree = after.OpenTree("t")!;
        Assert.False(reopenedTree.TryGet(firstLeafKeys[0], out _));
        var ex = Assert.Throws<StorageCorruptionException>(() => reopenedTree.TryGet(damagedKey, out _));
        Assert.Equal(damaged, ex.Page);
    }
}
