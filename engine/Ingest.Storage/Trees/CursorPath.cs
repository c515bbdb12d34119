using System.Runtime.CompilerServices;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Trees;

/// <summary>
/// Where a cursor is in a B+Tree of either kind: the branch pages from the root down with the child index taken in
/// each, the leaf and the entry in it, and the tree version it was positioned in. Descending, stepping across leaves
/// and the staleness checks are the same for <see cref="TreeCursor"/> and FixedSizeTrees.FixedSizeTreeCursor; only
/// reading a page differs, which <typeparamref name="TLayout"/> supplies (a struct, so there is no virtual call).
/// A mutable struct held in its cursor's field: moving allocates nothing.
/// The leaf's address and entry count are kept from the descent that reached it, so stepping within a leaf and reading
/// the current entry look no page up (a page lookup per MoveNext, Key and Value made a column walk cost about 250 ns
/// per entry). The address stays valid while the tree's version does: a read snapshot's pages live as long as the
/// transaction, and in a write transaction only a modification of this tree (which changes its version, so every use
/// throws) can give the leaf a new copy; a write transaction opens each tree once, so no other instance modifies it.
/// </summary>
internal unsafe struct CursorPath<TLayout, TKey>
    where TLayout : struct, ICursorPageLayout<TKey>
    where TKey : allows ref struct
{
    private const int MaxDepth = 32;
    private readonly long[] _pages;
    private readonly int[] _indexes;
    private int _depth;
    private byte* _leaf;
    private int _leafCount;
    private int _leafIndex;
    private bool _valid;
    private int _version;

    public CursorPath()
    {
        _pages = new long[MaxDepth];
        _indexes = new int[MaxDepth];
    }

    /// <summary>Whether the cursor is on an entry.</summary>
    public readonly bool IsValid => _valid;

    /// <summary>The index of the current entry in <see cref="Leaf"/>'s page.</summary>
    public readonly int LeafIndex => _leafIndex;

    /// <summary>How many entries <see cref="Leaf"/>'s page holds.</summary>
    public readonly int LeafCount => _leafCount;

    /// <summary>The page of the current entry, once <see cref="EnsurePositioned"/> holds.</summary>
    public readonly byte* Leaf(in PageSource pages, int treeVersion)
    {
        EnsurePositioned(pages, treeVersion);
        return _leaf;
    }

    /// <summary>Descends from <paramref name="root"/> to <paramref name="start"/>; false (and invalid) if there is no such entry.</summary>
    public bool Position(in PageSource pages, long root, int treeVersion, TKey key, CursorStart start)
    {
        pages.EnsureActive();
        _version = treeVersion;
        pages.CountDescent();
        var p = Descend(pages, root, 0, key, start);
        var count = _leafCount;
        _leafIndex = start switch
        {
            CursorStart.AtKey => TLayout.SearchLeaf(p, key),
            CursorStart.First => 0,
            _ => count - 1,
        };

        if (_leafIndex >= count)
        {
            return _valid = NextLeaf(pages);
        }

        if (_leafIndex < 0)
        {
            return _valid = PrevLeaf(pages);
        }

        return _valid = true;
    }

    /// <summary>Moves to the next entry; false (and invalid) past the end.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool MoveNext(in PageSource pages, int treeVersion)
    {
        EnsurePositioned(pages, treeVersion);
        if (_leafIndex + 1 < _leafCount)
        {
            _leafIndex++;
            return true;
        }

        return _valid = NextLeaf(pages);
    }

    /// <summary>
    /// Moves <paramref name="entries"/> ahead in the current leaf, which must hold that many after the current entry
    /// or end exactly there: then to the next leaf's first entry; false (and invalid) past the end.
    /// </summary>
    public bool Skip(in PageSource pages, int treeVersion, int entries)
    {
        EnsurePositioned(pages, treeVersion);
        _leafIndex += entries;
        if (_leafIndex < _leafCount)
        {
            return true;
        }

        return _valid = NextLeaf(pages);
    }

    /// <summary>
    /// Moves <paramref name="entries"/> back in the current leaf, which must hold that many before the current entry
    /// or end exactly there: then to the previous leaf's last entry; false (and invalid) before the start.
    /// </summary>
    public bool SkipBack(in PageSource pages, int treeVersion, int entries)
    {
        EnsurePositioned(pages, treeVersion);
        _leafIndex -= entries;
        if (_leafIndex >= 0)
        {
            return true;
        }

        return _valid = PrevLeaf(pages);
    }

    /// <summary>Moves to the previous entry; false (and invalid) before the start.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool MovePrev(in PageSource pages, int treeVersion)
    {
        EnsurePositioned(pages, treeVersion);
        if (_leafIndex > 0)
        {
            _leafIndex--;
            return true;
        }

        return _valid = PrevLeaf(pages);
    }

    /// <summary>Throws unless the transaction is active, the tree unchanged since <see cref="Position"/> and the cursor on an entry.</summary>
    public readonly void EnsurePositioned(in PageSource pages, int treeVersion)
    {
        pages.EnsureActive();
        if (_version != treeVersion)
        {
            throw new InvalidOperationException("The tree was modified after the cursor was positioned.");
        }

        if (!_valid)
        {
            throw new InvalidOperationException("The cursor is not on an entry.");
        }
    }

    /// <summary>
    /// Records the branches from <paramref name="page"/> (at <paramref name="depth"/>) down to the leaf, taking the child
    /// toward <paramref name="start"/> in each, and returns the leaf; the caller sets the index in it. Only
    /// <see cref="CursorStart.AtKey"/> reads <paramref name="key"/>.
    /// </summary>
    private byte* Descend(in PageSource pages, long page, int depth, TKey key, CursorStart start)
    {
        var p = pages.Read(page);
        while (!TLayout.IsLeaf(p))
        {
            var i = start switch
            {
                CursorStart.AtKey => TLayout.SearchBranch(p, key),
                CursorStart.First => 0,
                _ => TLayout.GetCount(p) - 1,
            };
            _pages[depth] = page;
            _indexes[depth] = i;
            depth++;
            page = TLayout.ChildAt(p, i);
            p = pages.Read(page);
        }

        _depth = depth;
        _leaf = p;
        _leafCount = TLayout.GetCount(p);
        return p;
    }

    private bool NextLeaf(in PageSource pages)
    {
        while (true)
        {
            var d = _depth - 1;
            while (d >= 0 && _indexes[d] + 1 >= TLayout.GetCount(pages.Read(_pages[d])))
            {
                d--;
            }

            if (d < 0)
            {
                return false;
            }

            _indexes[d]++;
            var leaf = Descend(pages, TLayout.ChildAt(pages.Read(_pages[d]), _indexes[d]), d + 1, default!, CursorStart.First);
            _leafIndex = 0;
            if (TLayout.GetCount(leaf) > 0)
            {
                return true;
            }
        }
    }

    private bool PrevLeaf(in PageSource pages)
    {
        while (true)
        {
            var d = _depth - 1;
            while (d >= 0 && _indexes[d] == 0)
            {
                d--;
            }

            if (d < 0)
            {
                return false;
            }

            _indexes[d]--;
            var leaf = Descend(pages, TLayout.ChildAt(pages.Read(_pages[d]), _indexes[d]), d + 1, default!, CursorStart.Last);
            _leafIndex = TLayout.GetCount(leaf) - 1;
            if (_leafIndex >= 0)
            {
                return true;
            }
        }
    }
}
