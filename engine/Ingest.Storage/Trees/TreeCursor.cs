namespace Ingest.Storage.Trees;

/// <summary>
/// An ordered position in a <see cref="Tree"/>. Position it with <see cref="Seek"/>, <see cref="First"/>
/// or <see cref="Last"/>, then move with <see cref="MoveNext"/> and <see cref="MovePrev"/>.
/// Modifying the tree makes the cursor stale until it is positioned again.
/// </summary>
public sealed unsafe class TreeCursor
{
    private const int MaxDepth = 32;
    private readonly Tree _tree;
    private readonly long[] _pages = new long[MaxDepth];
    private readonly int[] _indexes = new int[MaxDepth];
    private int _depth;
    private long _leafPage;
    private int _leafIndex;
    private bool _valid;
    private int _version;

    internal TreeCursor(Tree tree)
    {
        _tree = tree;
    }

    /// <summary>Whether the cursor is on an entry.</summary>
    public bool IsValid => _valid;

    /// <summary>The current key.</summary>
    public ReadOnlySpan<byte> Key => TreePage.LeafKey(CurrentEntry());

    /// <summary>The current value.</summary>
    public ReadOnlySpan<byte> Value => _tree.ReadValue(CurrentEntry());

    /// <summary>Moves to the first key >= <paramref name="key"/>; false if there is none.</summary>
    public bool Seek(ReadOnlySpan<byte> key) => Position(key, mode: 0);

    /// <summary>Moves to the smallest key; false if the tree is empty.</summary>
    public bool First() => Position(default, mode: 1);

    /// <summary>Moves to the largest key; false if the tree is empty.</summary>
    public bool Last() => Position(default, mode: 2);

    /// <summary>Moves to the next key; false (and invalid) past the end.</summary>
    public bool MoveNext()
    {
        EnsurePositioned();
        var leaf = _tree.Pages.Read(_leafPage);
        if (_leafIndex + 1 < TreePage.GetCount(leaf))
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
        return TreePage.Entry(_tree.Pages.Read(_leafPage), _leafIndex);
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

    private bool Position(ReadOnlySpan<byte> key, int mode)
    {
        _tree.Pages.EnsureActive();
        _version = _tree.Version;
        _tree.Pages.CountDescent();
        var page = _tree.RootPage;
        var p = _tree.Pages.Read(page);
        var depth = 0;
        while (!TreePage.IsLeaf(p))
        {
            var i = mode switch
            {
                0 => TreePage.SearchBranch(p, key),
                1 => 0,
                _ => TreePage.GetCount(p) - 1,
            };
            _pages[depth] = page;
            _indexes[depth] = i;
            depth++;
            page = TreePage.BranchChild(TreePage.Entry(p, i));
            p = _tree.Pages.Read(page);
        }

        _depth = depth;
        _leafPage = page;
        var count = TreePage.GetCount(p);
        _leafIndex = mode switch
        {
            0 => TreePage.SearchLeaf(p, key, out _),
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
            while (d >= 0 && _indexes[d] + 1 >= TreePage.GetCount(pages.Read(_pages[d])))
            {
                d--;
            }

            if (d < 0)
            {
                return false;
            }

            _indexes[d]++;
            var page = TreePage.BranchChild(TreePage.Entry(pages.Read(_pages[d]), _indexes[d]));
            var depth = d + 1;
            var p = pages.Read(page);
            while (!TreePage.IsLeaf(p))
            {
                _pages[depth] = page;
                _indexes[depth] = 0;
                depth++;
                page = TreePage.BranchChild(TreePage.Entry(p, 0));
                p = pages.Read(page);
            }

            _depth = depth;
            _leafPage = page;
            _leafIndex = 0;
            if (TreePage.GetCount(p) > 0)
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
            var page = TreePage.BranchChild(TreePage.Entry(pages.Read(_pages[d]), _indexes[d]));
            var depth = d + 1;
            var p = pages.Read(page);
            while (!TreePage.IsLeaf(p))
            {
                var last = TreePage.GetCount(p) - 1;
                _pages[depth] = page;
                _indexes[depth] = last;
                depth++;
                page = TreePage.BranchChild(TreePage.Entry(p, last));
                p = pages.Read(page);
            }

            _depth = depth;
            _leafPage = page;
            _leafIndex = TreePage.GetCount(p) - 1;
            if (_leafIndex >= 0)
            {
                return true;
            }
        }
    }
}
