namespace Ingest.Storage.Trees;

/// <summary>A <see cref="TreeCursor"/> reads <see cref="TreePage"/>s with byte-string keys.</summary>
internal readonly unsafe struct TreeCursorLayout : ICursorPageLayout<ReadOnlySpan<byte>>
{
    public static bool IsLeaf(byte* page) => TreePage.IsLeaf(page);

    public static int GetCount(byte* page) => TreePage.GetCount(page);

    public static long ChildAt(byte* branch, int index) => TreePage.BranchChild(TreePage.Entry(branch, index));

    public static int SearchBranch(byte* branch, ReadOnlySpan<byte> key) => TreePage.SearchBranch(branch, key);

    public static int SearchLeaf(byte* leaf, ReadOnlySpan<byte> key) => TreePage.SearchLeaf(leaf, key, out _);
}
