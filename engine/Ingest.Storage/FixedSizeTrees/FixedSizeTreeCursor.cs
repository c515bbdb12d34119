namespace Ingest.Storage.FixedSizeTrees;

/// <summary>An ordered position in a <see cref="FixedSizeTree"/>; same rules as <see cref="Trees.TreeCursor"/>.</summary>
public sealed unsafe class FixedSizeTreeCursor
{
    private const int MaxDepth = 32;
    private readonly FixedSizeTree _tree;
    private readonly long[] _pages = new long[MaxDepth];
    private readonly int[] _indexes = new int[MaxDepth];
    private int _depth;
    private long _leafPage;
    private int _leafIndex;
    private bool _valid;
    private int _version;

    internal FixedSizeTreeCursor(FixedSizeTree tree)
    {
        _tree = tree;
    }

    /// <summary>Whether the cursor is on an entry.</summary>
    public bool IsValid => _valid;

    /// <summary>The current key.</summary>
    public long Key => *(long*)CurrentEntry();

    /// <summary>The current value.</summary>
    public ReadOnlySpan<byte> Value => new(CurrentEntry() + 8, _tree.ValueSize);

    /// <summary>Moves to the first key >= <paramref name="key"/>; false if there is none.</summary>
    public bool Seek(long key) => Position(key, mode: 0);

    /// <summary>Moves to the smallest key; false if the tree is empty.</summary>
    public bool First() => Position(0, mode: 1);

    /// <summary>Moves to the largest key; false if the tree is empty.</summary>
    public bool Last() => Position(0, mode: 2);

    /// <summary>Moves to the next key; false (and invalid) past the end.</summary>
    public bool MoveNext()
    {
        EnsurePositioned();
        if (_leafIndex + 1 < FixedSizeTreePage.GetCount(_tree.Pages.Read(_leafPage)))
        {
            _leafIndex++;
            return true;
        }

        return _valid = NextLeaf();
    }

    /// <summary>Moves to the previous key; false (and invalid) before the start.</summary>
    public bool MovePrev()
    {
        EnsurePositioned();
        if (_leafIndex > 0)
        {
            _leafIndex--;
            return true;
        }

        return _valid = PrevLeaf();
    }

    private byte* CurrentEntry()
    {
        EnsurePositioned();
        return FixedSizeTreePage.Entry(_tree.Pages.Read(_leafPage), _leafIndex, 8 + _tree.ValueSize);
    }

    private void EnsurePositioned()
    {
        _tree.Pages.EnsureActive();
        if (_version != _tree.Version)
        {
            throw new InvalidOperationException("The tree was modified after the cursor was positioned.");
        }

        if (!_valid)
        {
            throw new InvalidOperationException("The cursor is not on an entry.");
        }
    }

    private bool Position(long key, int mode)
    {
        _tree.Pages.EnsureActive();
        _version = _tree.Version;
        var pages = _tree.Pages;
        pages.CountDescent();
        var page = _tree.RootPage;
        var p = pages.Read(page);
        var depth = 0;
        while (!FixedSizeTreePage.IsLeaf(p))
        {
            var i = mode switch
            {
                0 => FixedSizeTreePage.SearchBranch(p, key),
                1 => 0,
                _ => FixedSizeTreePage.GetCount(p) - 1,
            };
            _pages[depth] = page;
            _indexes[depth] = i;
            depth++;
            page = FixedSizeTreePage.ChildAt(p, i);
            p = pages.Read(page);
        }

        _depth = depth;
        _leafPage = page;
        var count = FixedSizeTreePage.GetCount(p);
        _leafIndex = mode switch
        {
            0 => FixedSizeTreePage.SearchLeaf(p, key, out _),
            1 => 0,
            _ => count - 1,
        };

        if (_leafIndex >= count)
        {
            return _valid = NextLeaf();
        }

        if (_leafIndex < 0)
        {
            return _valid = PrevLeaf();
        }

        return _valid = true;
    }

    private bool NextLeaf()
    {
        var pages = _tree.Pages;
        while (true)
        {
            var d = _depth - 1;
            while (d >= 0 && _indexes[d] + 1 >= FixedSizeTreePage.GetCount(pages.Read(_pages[d])))
            {
                d--;
            }

            if (d < 0)
            {
                return false;
            }

            _indexes[d]++;
            var page = FixedSizeTreePage.ChildAt(pages.Read(_pages[d]), _indexes[d]);
            var depth = d + 1;
            var p = pages.Read(page);
            while (!FixedSizeTreePage.IsLeaf(p))
            {
                _pages[depth] = page;
                _indexes[depth] = 0;
                depth++;
                page = FixedSizeTreePage.ChildAt(p, 0);
                p = pages.Read(page);
            }

            _depth = depth;
            _leafPage = page;
            _leafIndex = 0;
            if (FixedSizeTreePage.GetCount(p) > 0)
            {
                return true;
            }
        }
    }

    private bool PrevLeaf()
    {
        var pages = _tree.Pages;
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
            var page = FixedSizeTreePage.ChildAt(pages.Read(_pages[d]), _indexes[d]);
            var depth = d + 1;
            var p = pages.Read(page);
            while (!FixedSizeTreePage.IsLeaf(p))
            {
                var last = FixedSizeTreePage.GetCount(p) - 1;
                _pages[depth] = page;
                _indexes[depth] = last;
                depth++;
                page = FixedSizeTreePage.ChildAt(p, last);
                p = pages.Read(page);
            }

            _depth = depth;
            _leafPage = page;
            _leafIndex = FixedSizeTreePage.GetCount(p) - 1;
            if (_leafIndex >= 0)
            {
                return true;
            }
        }
    }
}
