using Ingest.Storage.Trees;

namespace Ingest.Storage.FixedSizeTrees;

/// <summary>A <see cref="FixedSizeTreeCursor"/> reads <see cref="FixedSizeTreePage"/>s with int64 keys.</summary>
internal readonly unsafe struct FixedSizeTreeCursorLayout : ICursorPageLayout<long>
{
    public static bool IsLeaf(byte* page) => FixedSizeTreePage.IsLeaf(page);

    public static int GetCount(byte* page) => FixedSizeTreePage.GetCount(page);

    public static long ChildAt(byte* branch, int index) => FixedSizeTreePage.ChildAt(branch, index);

    public static int SearchBranch(byte* branch, long key) => FixedSizeTreePage.SearchBranch(branch, key);

    public static int SearchLeaf(byte* leaf, long key) => FixedSizeTreePage.SearchLeaf(leaf, key, out _);
}
