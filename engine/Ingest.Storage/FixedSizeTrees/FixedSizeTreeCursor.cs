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

    /// <summary>
    /// Copies the entries from the current one on into <paramref name="keys"/> and their values into
    /// <paramref name="values"/> (<c>values[i * ValueSize..]</c>), as many as fit, and moves past them; returns how many,
    /// 0 once the cursor is past the end (or was never positioned). A leaf at a time: its entries are copied straight
    /// from the page, where <see cref="MoveNext"/>, <see cref="Key"/> and <see cref="Value"/> check the cursor per call.
    /// </summary>
    public int Fill(Span<long> keys, Span<byte> values)
    {
        var valueSize = _tree.ValueSize;
        if (values.Length < keys.Length * valueSize)
        {
            throw new ArgumentException($"Values of this tree are {valueSize} bytes: {keys.Length * valueSize} bytes are needed for {keys.Length} keys, not {values.Length}.", nameof(values));
        }

        var pages = _tree.Pages;
        var version = _tree.Version;
        var entrySize = 8 + valueSize;
        var filled = 0;
        pages.EnsureActive();
        while (filled < keys.Length && _path.IsValid)
        {
            var index = _path.LeafIndex;
            var take = Math.Min(keys.Length - filled, _path.LeafCount - index);
            var entry = FixedSizeTreePage.Entry(_path.Leaf(pages, version), index, entrySize);
            for (var i = 0; i < take; i++, entry += entrySize)
            {
                keys[filled + i] = *(long*)entry;
                new ReadOnlySpan<byte>(entry + 8, valueSize).CopyTo(values.Slice((filled + i) * valueSize, valueSize));
            }

            filled += take;
            _path.Skip(pages, version, take);
        }

        return filled;
    }

    private byte* CurrentEntry() => FixedSizeTreePage.Entry(_path.Leaf(_tree.Pages, _tree.Version), _path.LeafIndex, 8 + _tree.ValueSize);
}
