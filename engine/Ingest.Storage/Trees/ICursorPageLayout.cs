namespace Ingest.Storage.Trees;

/// <summary>
/// How a <see cref="CursorPath{TLayout, TKey}"/> reads one kind of tree page. Implemented by empty structs: the path's
/// code is compiled once per layout with these calls resolved and inlined, so a cursor move makes no interface call.
/// </summary>
/// <typeparam name="TKey">The tree's key: a byte string or an int64.</typeparam>
internal unsafe interface ICursorPageLayout<TKey>
    where TKey : allows ref struct
{
    static abstract bool IsLeaf(byte* page);

    static abstract int GetCount(byte* page);

    /// <summary>The child page of a branch's entry <paramref name="index"/>.</summary>
    static abstract long ChildAt(byte* branch, int index);

    /// <summary>The index of the branch entry whose child holds <paramref name="key"/>.</summary>
    static abstract int SearchBranch(byte* branch, TKey key);

    /// <summary>The index of the leaf's first key >= <paramref name="key"/>; the count if there is none.</summary>
    static abstract int SearchLeaf(byte* leaf, TKey key);
}
