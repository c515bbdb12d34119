using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Trees;

/// <summary>
/// A B+Tree of byte-string keys (up to <see cref="MaxKeySize"/> bytes, compared as unsigned bytes)
/// to byte-string values of any size; values larger than a quarter page go to overflow pages.
/// Spans returned by a read transaction's tree stay valid until the transaction ends; in a write
/// transaction, until the next modification. Not thread-safe (neither are transactions).
/// </summary>
public sealed unsafe partial class Tree
{
    /// <summary>The longest key a tree accepts.</summary>
    public const int MaxKeySize = TreePage.MaxKeySize;

    internal const int MaxDepth = 32;
    private readonly PageSource _pages;
    private long[] _pathPages = []; // set by the first modification: reads never need them
    private int[] _pathIndex = [];
    private int _depth;

    internal Tree(PageSource pages, long rootPage, string name)
    {
        _pages = pages;
        RootPage = rootPage;
        Name = name;
    }

    /// <summary>The tree's name in its environment.</summary>
    public string Name { get; }

    internal long RootPage { get; }

    /// <summary>Bumped by every modification; cursors use it to detect they are stale.</summary>
    internal int Version { get; private set; }

    internal PageSource Pages => _pages;

    /// <summary>Number of entries.</summary>
    public long Count
    {
        get
        {
            _pages.EnsureActive();
            return TreePage.GetTreeCount(_pages.Read(RootPage));
        }
    }

    // The writer's scratch (one write transaction at a time): [0, 8192) a page copy for splits and
    // compaction, then the entry being inserted and a separator key.
    private byte* Buffers => _pages.Writer.TreeBuffers;

    private byte* TempPage => Buffers;

    private byte* EntryBuffer => Buffers + PageHeader.PageSize;

    private byte* SeparatorBuffer => Buffers + PageHeader.PageSize + 4096;

    /// <summary>Looks a key up. The value span is valid as described on <see cref="Tree"/>.</summary>
    public bool TryGet(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        _pages.EnsureActive();
        return Lookup(_pages, RootPage, key, out value);
    }

    /// <summary>A point lookup without a Tree object (the tree directory uses it on every OpenTree).</summary>
    internal static bool Lookup(PageSource pages, long rootPage, ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        pages.CountDescent();
        var p = pages.Read(rootPage);
        while (!TreePage.IsLeaf(p))
        {
            var i = TreePage.SearchBranch(p, key);
            p = pages.Read(TreePage.BranchChild(TreePage.Entry(p, i)));
        }

        var idx = TreePage.SearchLeaf(p, key, out var found);
        if (!found)
        {
            value = default;
            return false;
        }

        value = ReadValue(pages, TreePage.Entry(p, idx));
        return true;
    }

    /// <summary>Whether the key exists.</summary>
    public bool ContainsKey(ReadOnlySpan<byte> key) => TryGet(key, out _);

    internal ReadOnlySpan<byte> ReadValue(byte* entry) => ReadValue(_pages, entry);

    private static ReadOnlySpan<byte> ReadValue(PageSource pages, byte* entry)
    {
        var length = TreePage.LeafValueLength(entry);
        if (!TreePage.IsOverflow(entry))
        {
            return new ReadOnlySpan<byte>(TreePage.LeafValue(entry), length);
        }

        var run = pages.Read(TreePage.OverflowPageOf(entry));
        return new ReadOnlySpan<byte>(run + OverflowPage.HeaderSize, length);
    }

    /// <summary>Inserts or replaces the value of <paramref name="key"/>.</summary>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => Put(key, value, default);

    /// <summary>
    /// Inserts or replaces the value of <paramref name="key"/> and says what it replaced, with one
    /// descent where <see cref="TryGet"/> then <see cref="Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>
    /// take two (the document store's id index does this for every put, on a random leaf).
    /// Returns the length of the value replaced, of which the first <paramref name="previous"/>.Length
    /// bytes are copied to <paramref name="previous"/>, or -1 when the key was new.
    /// </summary>
    public int Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, Span<byte> previous)
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        if (key.Length > MaxKeySize)
        {
            throw new ArgumentException($"Keys are limited to {MaxKeySize} bytes; this one has {key.Length}.", nameof(key));
        }

        Version++;
        var leafPage = FindLeaf(key);
        var leaf = tx.ModifyPage(leafPage);
        var idx = TreePage.SearchLeaf(leaf, key, out var found);
        var inline = TreePage.LeafEntrySize(key.Length, value.Length, overflow: false) + TreePage.SlotSize <= TreePage.MaxEntryWithSlot;
        var replaced = -1;
        if (found)
        {
            var old = TreePage.Entry(leaf, idx);
            replaced = TreePage.LeafValueLength(old);
            if (!previous.IsEmpty)
            {
                ReadValue(old)[..Math.Min(replaced, previous.Length)].CopyTo(previous);
            }

            if (inline && !TreePage.IsOverflow(old) && TreePage.LeafValueLength(old) == value.Length)
            {
                value.CopyTo(new Span<byte>(TreePage.LeafValue(old), value.Length));
                return replaced;
            }
        }

        // Copy key and value out before anything is freed or moved: they may point into this tree's pages.
        int size;
        if (inline)
        {
            size = TreePage.WriteLeafEntry(EntryBuffer, key, value);
        }
        else
        {
            size = WriteOverflowEntry(tx, key, value);
        }

        if (found)
        {
            FreeOverflow(tx, TreePage.Entry(leaf, idx));
            TreePage.RemoveAt(leaf, idx);
        }
        else
        {
            var root = tx.ModifyPage(RootPage);
            TreePage.SetTreeCount(root, TreePage.GetTreeCount(root) + 1);
        }

        InsertEntry(tx, _depth, leafPage, idx, size);
        return replaced;
    }

    /// <summary>Removes <paramref name="key"/>; false if it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        var leafPage = FindLeaf(key);
        var idx = TreePage.SearchLeaf(_pages.Read(leafPage), key, out var found);
        if (!found)
        {
            return false;
        }

        Version++;
        var leaf = tx.ModifyPage(leafPage);
        FreeOverflow(tx, TreePage.Entry(leaf, idx));
        TreePage.RemoveAt(leaf, idx);
        var root = tx.ModifyPage(RootPage);
        TreePage.SetTreeCount(root, TreePage.GetTreeCount(root) - 1);
        Rebalance(tx, leafPage, _depth);
        return true;
    }

    /// <summary>
    /// Inserts or replaces the given entries, whose keys must be in strictly ascending order, in one
    /// ordered pass: each leaf is found once and takes all of its keys that fit; a key that needs a
    /// split goes the way of <see cref="Put"/>, and the pass goes on from a fresh descent.
    /// </summary>
    public void PutSorted(ReadOnlySpan<byte[]> keys, ReadOnlySpan<byte[]> values)
    {
        if (keys.Length != values.Length)
        {
            throw new ArgumentException($"{keys.Length} keys but {values.Length} values.", nameof(values));
        }

        PutSortedCore(keys, values);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void PutSortedCore(ReadOnlySpan<byte[]> keys, ReadOnlySpan<byte[]> values)
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        Version++;
        long added = 0;
        var i = 0;
        var pathValid = false;
        while (i < keys.Length)
        {
            var leafPage = pathValid ? FindLeafFromPath(keys[i]) : FindLeaf(keys[i]);
            pathValid = true;
            var hasUpper = LeafUpperBound(_depth, out var upper);
            var from = 0;
            for (; i < keys.Length; i++)
            {
                var key = keys[i];
                if (key.Length > MaxKeySize)
                {
                    throw new ArgumentException($"Keys are limited to {MaxKeySize} bytes; key {i} has {key.Length}.", nameof(keys));
                }

                if (i > 0 && key.AsSpan().SequenceCompareTo(keys[i - 1]) <= 0)
                {
                    throw new ArgumentException($"Keys must be in strictly ascending order (index {i}).", nameof(keys));
                }

                if (hasUpper && key.AsSpan().SequenceCompareTo(upper) >= 0)
                {
                    break;
                }

                if (!TryPutInLeaf(tx, leafPage, key, values[i], ref from, ref added))
                {
                    // The leaf is full: Put splits it (and maybe its ancestors), so the path is stale.
                    Put(key, values[i]);
                    pathValid = false;
                    i++;
                    break;
                }
            }
        }

        if (added != 0)
        {
            var root = tx.ModifyPage(RootPage);
            TreePage.SetTreeCount(root, TreePage.GetTreeCount(root) + added);
        }
    }

    /// <summary>Puts one entry into <paramref name="leafPage"/> if it fits there without a split.</summary>
    private bool TryPutInLeaf(WriteTransaction tx, long leafPage, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, ref int from, ref long added)
    {
        var leaf = tx.ModifyPage(leafPage);
        var idx = TreePage.SearchLeaf(leaf, key, out var found, from);
        var inline = TreePage.LeafEntrySize(key.Length, value.Length, overflow: false) + TreePage.SlotSize <= TreePage.MaxEntryWithSlot;
        if (found)
        {
            var old = TreePage.Entry(leaf, idx);
            if (inline && !TreePage.IsOverflow(old) && TreePage.LeafValueLength(old) == value.Length)
            {
                value.CopyTo(new Span<byte>(TreePage.LeafValue(old), value.Length));
                from = idx + 1;
                return true;
            }
        }

        var size = TreePage.LeafEntrySize(key.Length, value.Length, overflow: !inline);
        if (!TreePage.Fits(leaf, size))
        {
            return false;
        }

        if (inline)
        {
            TreePage.WriteLeafEntry(EntryBuffer, key, value);
        }
        else
        {
            WriteOverflowEntry(tx, key, value);
        }

        if (found)
        {
            FreeOverflow(tx, TreePage.Entry(leaf, idx));
            TreePage.RemoveAt(leaf, idx);
        }
        else
        {
            added++;
        }

        TreePage.InsertCopy(leaf, idx, EntryBuffer, size, TempPage);
        from = idx + 1;
        return true;
    }

    /// <summary>
    /// The leaf at the end of the recorded path holds keys below <paramref name="upper"/>: the separator
    /// right of the path in the nearest ancestor that has one. False for the last leaf (no bound).
    /// </summary>
    private bool LeafUpperBound(int depth, out ReadOnlySpan<byte> upper)
    {
        for (var d = depth - 1; d >= 0; d--)
        {
            var parent = _pages.Read(_pathPages[d]);
            if (_pathIndex[d] + 1 < TreePage.GetCount(parent))
            {
                upper = TreePage.BranchKey(TreePage.Entry(parent, _pathIndex[d] + 1));
                return true;
            }
        }

        upper = default;
        return false;
    }

    /// <summary>
    /// Like <see cref="FindLeaf"/> for a key above the last one found, while the recorded path is still
    /// true (no split or merge since): climbs it only as far as the first branch whose range holds
    /// the key, then descends.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // per leaf of a sorted batch: see DeleteSortedCore
    private long FindLeafFromPath(ReadOnlySpan<byte> key)
    {
        _pages.CountDescent();
        var level = _depth - 1;
        while (level > 0 && LeafUpperBound(level, out var upper) && key.SequenceCompareTo(upper) >= 0)
        {
            level--;
        }

        if (level < 0)
        {
            return RootPage; // the root is the only leaf
        }

        // The key is above the last one, so its child is at or after the path's: search from there.
        var branch = _pages.Read(_pathPages[level]);
        var i = TreePage.SearchBranchNear(branch, key, Math.Max(_pathIndex[level], 0));
        _pathIndex[level] = i;
        return DescendFrom(level + 1, TreePage.BranchChild(TreePage.Entry(branch, i)), key);
    }

    /// <summary>Opens a cursor for ordered scans.</summary>
    public TreeCursor CreateCursor()
    {
        _pages.EnsureActive();
        return new TreeCursor(this);
    }

    /// <summary>Writes the value to a new overflow run and the leaf entry pointing at it to EntryBuffer; returns the entry's size.</summary>
    private int WriteOverflowEntry(WriteTransaction tx, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        var pages = OverflowPage.PagesFor(value.Length);
        var run = tx.AllocateRun(pages, out var runPage);
        OverflowPage.SetValueLength(run, value.Length);
        value.CopyTo(new Span<byte>(run + OverflowPage.HeaderSize, value.Length));
        var end = OverflowPage.HeaderSize + (long)value.Length;
        new Span<byte>(run + end, (int)(((long)pages * PageHeader.PageSize) - end)).Clear();
        return TreePage.WriteOverflowLeafEntry(EntryBuffer, key, value.Length, runPage);
    }

    private void FreeOverflow(WriteTransaction tx, byte* entry)
    {
        if (TreePage.IsOverflow(entry))
        {
            tx.FreeRun(TreePage.OverflowPageOf(entry), OverflowPage.PagesFor(TreePage.LeafValueLength(entry)));
        }
    }

    /// <summary>Descends to the leaf for <paramref name="key"/>, recording the branch path in _pathPages/_pathIndex.</summary>
    private long FindLeaf(ReadOnlySpan<byte> key)
    {
        if (_pathPages.Length == 0)
        {
            // The writer's path arrays: a path lives only within one modifying call, and one writer
            // makes one call at a time, so a tree opened per transaction allocates none.
            var env = _pages.Writer.Environment;
            _pathPages = env.WriterTreePath;
            _pathIndex = env.WriterTreePathIndex;
        }

        _pages.CountDescent();
        return DescendFrom(0, RootPage, key);
    }

    /// <summary>Descends from <paramref name="page"/> at <paramref name="depth"/> to the leaf for <paramref name="key"/>, recording the path below it.</summary>
    private long DescendFrom(int depth, long page, ReadOnlySpan<byte> key)
    {
        var p = _pages.Read(page);
        while (!TreePage.IsLeaf(p))
        {
            var i = TreePage.SearchBranch(p, key);
            _pathPages[depth] = page;
            _pathIndex[depth] = i;
            depth++;
            page = TreePage.BranchChild(TreePage.Entry(p, i));
            p = _pages.Read(page);
        }

        _depth = depth;
        return page;
    }

    /// <summary>Inserts the entry in EntryBuffer into <paramref name="page"/> (with <paramref name="depth"/> ancestors on the path), splitting as needed.</summary>
    private void InsertEntry(WriteTransaction tx, int depth, long page, int index, int size)
    {
        while (true)
        {
            var p = tx.ModifyPage(page);
            if (TreePage.Fits(p, size))
            {
                TreePage.InsertCopy(p, index, EntryBuffer, size, TempPage);
                return;
            }

            if (depth == 0)
            {
                // The root keeps its page number: its content moves to a new child, which then splits.
                var isLeaf = TreePage.IsLeaf(p);
                var childPtr = tx.AllocatePage(isLeaf ? PageType.TreeLeaf : PageType.TreeBranch, out var child);
                Buffer.MemoryCopy(p, childPtr, PageHeader.PageSize, PageHeader.PageSize);
                *(long*)childPtr = child;
                TreePage.SetTreeCount(childPtr, 0);
                TreePage.Reset(p, isLeaf: false);
                var rootEntrySize = TreePage.WriteBranchEntry(SeparatorBuffer, child, default);
                TreePage.AppendCopy(p, SeparatorBuffer, rootEntrySize);
                _pathPages[0] = page;
                _pathIndex[0] = 0;
                depth = 1;
                page = child;
                continue;
            }

            var separatorChild = Split(tx, page, index, size, out var separatorLength);
            size = TreePage.WriteBranchEntry(EntryBuffer, separatorChild, new ReadOnlySpan<byte>(SeparatorBuffer, separatorLength));
            depth--;
            page = _pathPages[depth];
            index = _pathIndex[depth] + 1;
        }
    }

    /// <summary>
    /// Splits <paramref name="page"/> while inserting the entry in EntryBuffer at <paramref name="index"/>.
    /// Returns the new right page; its separator key is left in SeparatorBuffer.
    /// </summary>
    private long Split(WriteTransaction tx, long page, int index, int newSize, out int separatorLength)
    {
        var p = tx.ModifyPage(page);
        var temp = TempPage;
        Buffer.MemoryCopy(p, temp, PageHeader.PageSize, PageHeader.PageSize);
        var isLeaf = TreePage.IsLeaf(temp);
        var count = TreePage.GetCount(temp);
        var total = count + 1;

        // Entry k of the combined sequence: the new entry at index, the old ones around it.
        var sizeSum = 0;
        for (var k = 0; k < count; k++)
        {
            sizeSum += TreePage.EntrySize(temp, TreePage.Entry(temp, k)) + TreePage.SlotSize;
        }

        sizeSum += newSize + TreePage.SlotSize;

        int splitAt;
        if (index == count)
        {
            // Appending at the end (sequential inserts): keep the left page full.
            splitAt = count;
        }
        else
        {
            splitAt = 0;
            var acc = 0;
            while (splitAt < total - 1)
            {
                acc += SizeAt(temp, splitAt, index, newSize) + TreePage.SlotSize;
                splitAt++;
                if (acc >= sizeSum / 2)
                {
                    break;
                }
            }
        }

        TreePage.Reset(p, isLeaf);
        var rightPtr = tx.AllocatePage(isLeaf ? PageType.TreeLeaf : PageType.TreeBranch, out var right);
        TreePage.Reset(rightPtr, isLeaf);

        // Separator: the first key of the right page. In a branch it moves up and the right page's first key becomes empty.
        var first = EntryAt(temp, splitAt, index);
        var sepKey = isLeaf ? TreePage.LeafKey(first) : TreePage.BranchKey(first);
        separatorLength = sepKey.Length;
        sepKey.CopyTo(new Span<byte>(SeparatorBuffer, sepKey.Length));

        var minusInfinity = stackalloc byte[TreePage.BranchEntryHeader];
        for (var k = 0; k < total; k++)
        {
            var e = EntryAt(temp, k, index);
            var size = k == index ? newSize : TreePage.EntrySize(temp, e);
            if (k < splitAt)
            {
                TreePage.AppendCopy(p, e, size);
            }
            else if (k == splitAt && !isLeaf)
            {
                TreePage.WriteBranchEntry(minusInfinity, TreePage.BranchChild(e), default);
                TreePage.AppendCopy(rightPtr, minusInfinity, TreePage.BranchEntryHeader);
            }
            else
            {
                TreePage.AppendCopy(rightPtr, e, size);
            }
        }

        return right;
    }

    private byte* EntryAt(byte* temp, int k, int index)
    {
        if (k == index)
        {
            return EntryBuffer;
        }

        return TreePage.Entry(temp, k < index ? k : k - 1);
    }

    private int SizeAt(byte* temp, int k, int index, int newSize) => k == index ? newSize : TreePage.EntrySize(temp, TreePage.Entry(temp, k < index ? k : k - 1));

    /// <summary>After removals from <paramref name="page"/>: merges underfull pages with a sibling, upwards, and shrinks the root. True if it changed the tree's shape.</summary>
    private bool Rebalance(WriteTransaction tx, long page, int depth)
    {
        var changed = false;
        while (true)
        {
            var p = _pages.Read(page);
            if (depth == 0)
            {
                // A root branch with one child absorbs it (the root page number never changes).
                while (!TreePage.IsLeaf(p) && TreePage.GetCount(p) == 1)
                {
                    var child = TreePage.BranchChild(TreePage.Entry(p, 0));
                    var c = _pages.Read(child);
                    var w = tx.ModifyPage(page);
                    var treeCount = TreePage.GetTreeCount(w);
                    Buffer.MemoryCopy(c, w, PageHeader.PageSize, PageHeader.PageSize);
                    *(long*)w = page;
                    TreePage.SetTreeCount(w, treeCount);
                    tx.FreePage(child);
                    p = w;
                    changed = true;
                }

                return changed;
            }

            if (TreePage.Used(p) >= TreePage.MinFill)
            {
                return changed;
            }

            var parentPage = _pathPages[depth - 1];
            var parent = _pages.Read(parentPage);
            var parentCount = TreePage.GetCount(parent);
            if (parentCount < 2)
            {
                return changed;
            }

            var pi = _pathIndex[depth - 1];
            var li = pi > 0 ? pi - 1 : pi;
            var ri = li + 1;
            var leftPage = TreePage.BranchChild(TreePage.Entry(parent, li));
            var rightPage = TreePage.BranchChild(TreePage.Entry(parent, ri));
            var l = _pages.Read(leftPage);
            var r = _pages.Read(rightPage);
            var isLeaf = TreePage.IsLeaf(l);
            var separator = TreePage.BranchKey(TreePage.Entry(parent, ri));
            var needed = TreePage.Used(l) + TreePage.Used(r) + (isLeaf ? 0 : separator.Length);
            if (needed > TreePage.Capacity)
            {
                return changed;
            }

            var lw = tx.ModifyPage(leftPage);
            if (TreePage.GetFragmented(lw) > 0)
            {
                TreePage.Compact(lw, TempPage);
            }

            r = _pages.Read(rightPage);
            var rc = TreePage.GetCount(r);
            for (var k = 0; k < rc; k++)
            {
                var e = TreePage.Entry(r, k);
                if (k == 0 && !isLeaf)
                {
                    var size = TreePage.WriteBranchEntry(EntryBuffer, TreePage.BranchChild(e), separator);
                    TreePage.AppendCopy(lw, EntryBuffer, size);
                }
                else
                {
                    TreePage.AppendCopy(lw, e, TreePage.EntrySize(r, e));
                }
            }

            TreePage.RemoveAt(tx.ModifyPage(parentPage), ri);
            tx.FreePage(rightPage);
            changed = true;
            page = parentPage;
            depth--;
        }
    }
}
