using Ingest.Storage.Trees;

namespace Ingest.Storage.FixedSizeTrees;

/// <summary>An ordered position in a <see cref="FixedSizeTree"/>; same rules as <see cref="TreeCursor"/>.</summary>
public sealed unsafe class FixedSizeTreeCursor
{
    private readonly FixedSizeTree _tree;
    private CursorPath<FixedSizeTreeCursorLayout, long> _path = new();

    internal FixedSizeTreeCursor(FixedSizeTree tree)
    {
        _tree = tree;
    }

    /// <summary>Whether the cursor is on an entry.</summary>
    public bool IsValid => _path.IsValid;

    /// <summary>The current key.</summary>
    public long Key => *(long*)CurrentEntry();

    /// <summary>The current value.</summary>
    public ReadOnlySpan<byte> Value => new(CurrentEntry() + 8, _tree.ValueSize);

    /// <summary>Moves to the first key >= <paramref name="key"/>; false if there is none.</summary>
    public bool Seek(long key) => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, key, CursorStart.AtKey);

    /// <summary>Moves to the smallest key; false if the tree is empty.</summary>
    public bool First() => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, 0, CursorStart.First);

    /// <summary>Moves to the largest key; false if the tree is empty.</summary>
    public bool Last() => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, 0, CursorStart.Last);

    /// <summary>Moves to the next key; false (and invalid) past the end.</summary>
    public bool MoveNext() => _path.MoveNext(_tree.Pages, _tree.Version);

    /// <summary>Moves to the previous key; false (and invalid) before the start.</summary>
    public bool MovePrev() => _path.MovePrev(_tree.Pages, _tree.Version);

    private byte* CurrentEntry() => FixedSizeTreePage.Entry(_path.Leaf(_tree.Pages, _tree.Version), _path.LeafIndex, 8 + _tree.ValueSize);
}
