namespace Ingest.Storage.Trees;

/// <summary>
/// An ordered position in a <see cref="Tree"/>. Position it with <see cref="Seek"/>, <see cref="First"/>
/// or <see cref="Last"/>, then move with <see cref="MoveNext"/> and <see cref="MovePrev"/>.
/// Modifying the tree makes the cursor stale until it is positioned again.
/// </summary>
public sealed unsafe class TreeCursor
{
    private readonly Tree _tree;
    private CursorPath<TreeCursorLayout, ReadOnlySpan<byte>> _path = new();

    internal TreeCursor(Tree tree)
    {
        _tree = tree;
    }

    /// <summary>Whether the cursor is on an entry.</summary>
    public bool IsValid => _path.IsValid;

    /// <summary>The current key.</summary>
    public ReadOnlySpan<byte> Key => TreePage.LeafKey(CurrentEntry());

    /// <summary>The current value.</summary>
    public ReadOnlySpan<byte> Value => _tree.ReadValue(CurrentEntry());

    /// <summary>Moves to the first key >= <paramref name="key"/>; false if there is none.</summary>
    public bool Seek(ReadOnlySpan<byte> key) => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, key, CursorStart.AtKey);

    /// <summary>Moves to the smallest key; false if the tree is empty.</summary>
    public bool First() => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, default, CursorStart.First);

    /// <summary>Moves to the largest key; false if the tree is empty.</summary>
    public bool Last() => _path.Position(_tree.Pages, _tree.RootPage, _tree.Version, default, CursorStart.Last);

    /// <summary>Moves to the next key; false (and invalid) past the end.</summary>
    public bool MoveNext() => _path.MoveNext(_tree.Pages, _tree.Version);

    /// <summary>Moves to the previous key; false (and invalid) before the start.</summary>
    public bool MovePrev() => _path.MovePrev(_tree.Pages, _tree.Version);

    private byte* CurrentEntry() => TreePage.Entry(_path.Leaf(_tree.Pages, _tree.Version), _path.LeafIndex);
}
