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

    /// <summary>
    /// Hands <paramref name="visitor"/> the entries from the current one on whose keys are below <paramref name="end"/>,
    /// in key order, and leaves the cursor on the first entry not visited (invalid past the last); returns how many
    /// were visited. A leaf at a time: the leaf's last key tells whether the walk ends in it, and only then is
    /// <paramref name="end"/> searched for in it (once), so an entry costs neither a key comparison nor the cursor's
    /// checks that <see cref="Key"/>, <see cref="Value"/> and <see cref="MoveNext"/> make per call. Nothing is visited
    /// when the cursor is not on an entry.
    /// </summary>
    public long VisitForward<TVisitor>(ReadOnlySpan<byte> end, ref TVisitor visitor)
        where TVisitor : ITreeEntryVisitor, allows ref struct
    {
        var pages = _tree.Pages;
        var version = _tree.Version;
        long visited = 0;
        while (_path.IsValid)
        {
            var leaf = _path.Leaf(pages, version);
            var index = _path.LeafIndex;
            var count = _path.LeafCount;
            var stop = TreePage.CompareKeys(TreePage.LeafKey(TreePage.Entry(leaf, count - 1)), end) < 0
                ? count
                : TreePage.SearchLeaf(leaf, end, out _, index);
            for (var i = index; i < stop; i++)
            {
                var entry = TreePage.Entry(leaf, i);
                visited++;
                if (!visitor.Visit(TreePage.LeafKey(entry), _tree.ReadValue(entry)))
                {
                    _path.Skip(pages, version, i + 1 - index);
                    return visited;
                }
            }

            _path.Skip(pages, version, stop - index);
            if (stop < count)
            {
                break;
            }
        }

        return visited;
    }

    /// <summary>
    /// <see cref="VisitForward"/> toward the start: the entries from the current one back whose keys are at or above
    /// <paramref name="start"/>, in descending key order; the cursor is left on the first entry not visited (the
    /// largest key below <paramref name="start"/>; invalid when there is none).
    /// </summary>
    public long VisitBackward<TVisitor>(ReadOnlySpan<byte> start, ref TVisitor visitor)
        where TVisitor : ITreeEntryVisitor, allows ref struct
    {
        var pages = _tree.Pages;
        var version = _tree.Version;
        long visited = 0;
        while (_path.IsValid)
        {
            var leaf = _path.Leaf(pages, version);
            var index = _path.LeafIndex;
            var first = TreePage.CompareKeys(TreePage.LeafKey(TreePage.Entry(leaf, 0)), start) >= 0
                ? 0
                : Math.Min(TreePage.SearchLeaf(leaf, start, out _), index + 1);
            for (var i = index; i >= first; i--)
            {
                var entry = TreePage.Entry(leaf, i);
                visited++;
                if (!visitor.Visit(TreePage.LeafKey(entry), _tree.ReadValue(entry)))
                {
                    _path.SkipBack(pages, version, index - i + 1);
                    return visited;
                }
            }

            _path.SkipBack(pages, version, index - first + 1);
            if (first > 0)
            {
                break;
            }
        }

        return visited;
    }

    private byte* CurrentEntry() => TreePage.Entry(_path.Leaf(_tree.Pages, _tree.Version), _path.LeafIndex);
}
