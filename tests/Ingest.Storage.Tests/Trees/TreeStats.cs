using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

internal static unsafe class TreeStats
{
    public static int LeafPages(Tree tree) => Count(tree.Pages, tree.RootPage, leavesOnly: true);

    /// <summary>Branch, leaf and overflow pages reachable from a tree's root.</summary>
    public static int Pages(PageSource pages, long root) => Count(pages, root, leavesOnly: false);

    /// <summary>
    /// Every allocated page is either free or reached: the state and header pages, the free-space
    /// bitmaps, the directory of trees and the given trees (the only ones in the environment).
    /// A page a delete dropped without freeing it, or freed twice, breaks the sum.
    /// </summary>
    public static void AssertEveryPageAccountedFor(params Tree[] trees)
    {
        var pages = trees[0].Pages;
        var state = pages.Read(StatePage.PageNumber);
        long reached = 2 + StatePage.GetBitmapCount(state) + Pages(pages, StatePage.GetRootTreePage(state));
        foreach (var tree in trees)
        {
            reached += Pages(pages, tree.RootPage);
        }

        Assert.Equal(StatePage.GetNextPage(state), reached + StatePage.GetFreeCount(state));
    }

    private static int Count(PageSource pages, long root, bool leavesOnly)
    {
        var count = 0;
        var stack = new Stack<long>();
        stack.Push(root);
        while (stack.Count > 0)
        {
            var p = pages.Read(stack.Pop());
            var n = TreePage.GetCount(p);
            if (TreePage.IsLeaf(p))
            {
                count++;
                for (var i = 0; i < n && !leavesOnly; i++)
                {
                    var e = TreePage.Entry(p, i);
                    if (TreePage.IsOverflow(e))
                    {
                        count += OverflowPage.PagesFor(TreePage.LeafValueLength(e));
                    }
                }

                continue;
            }

            count += leavesOnly ? 0 : 1;
            for (var i = 0; i < n; i++)
            {
                stack.Push(TreePage.BranchChild(TreePage.Entry(p, i)));
            }
        }

        return count;
    }

    /// <summary>Levels from the root to the leaves (1: the root is a leaf).</summary>
    public static int Depth(Tree tree)
    {
        var depth = 1;
        var p = tree.Pages.Read(tree.RootPage);
        while (!TreePage.IsLeaf(p))
        {
            p = tree.Pages.Read(TreePage.BranchChild(TreePage.Entry(p, 0)));
            depth++;
        }

        return depth;
    }
}
