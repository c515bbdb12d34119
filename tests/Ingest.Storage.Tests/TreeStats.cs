using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests;

internal static unsafe class TreeStats
{
    public static int LeafPages(Tree tree)
    {
        var pages = tree.Pages;
        var count = 0;
        var stack = new Stack<long>();
        stack.Push(tree.RootPage);
        while (stack.Count > 0)
        {
            var p = pages.Read(stack.Pop());
            if (TreePage.IsLeaf(p))
            {
                count++;
                continue;
            }

            for (var i = 0; i < TreePage.GetCount(p); i++)
            {
                stack.Push(TreePage.BranchChild(TreePage.Entry(p, i)));
            }
        }

        return count;
    }
}
