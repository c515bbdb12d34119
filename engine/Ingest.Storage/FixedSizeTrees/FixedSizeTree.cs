using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.FixedSizeTrees;

/// <summary>
/// A B+Tree from int64 keys to values of one fixed size (0 bytes makes it a set), with compact
/// fixed-stride pages. Spans follow the same lifetime rules as <see cref="Trees.Tree"/>.
/// </summary>
public sealed unsafe class FixedSizeTree
{
    /// <summary>The largest value size a fixed-size tree accepts.</summary>
    public const int MaxValueSize = 1024;

    private const int MaxDepth = 32;

    /// <summary>How many keys ahead <see cref="GetSorted"/> prefetches the entry it expects.</summary>
    private const int PrefetchDistance = 8;
    private readonly PageSource _pages;
    private long[] _pathPages = []; // allocated by the first modification: reads never need them
    private int[] _pathIndex = [];
    private int _depth;

    internal FixedSizeTree(PageSource pages, long rootPage, int valueSize, string name)
    {
        _pages = pages;
        RootPage = rootPage;
        ValueSize = valueSize;
        Name = name;
    }

    /// <summary>The tree's name in its environment.</summary>
    public string Name { get; }

    /// <summary>Size in bytes of every value.</summary>
    public int ValueSize { get; }

    internal long RootPage { get; }

    internal PageSource Pages => _pages;

    internal int Version { get; private set; }

    /// <summary>Number of entries.</summary>
    public long Count
    {
        get
        {
            _pages.EnsureActive();
            return FixedSizeTreePage.GetTreeCount(_pages.Read(RootPage));
        }
    }

    private int LeafEntrySize => 8 + ValueSize;

    /// <summary>Looks a key up; the span is valid as for <see cref="Trees.Tree.TryGet"/>.</summary>
    public bool TryGet(long key, out ReadOnlySpan<byte> value)
    {
        _pages.EnsureActive();
        _pages.CountDescent();
        var p = _pages.Read(RootPage);
        while (!FixedSizeTreePage.IsLeaf(p))
        {
            p = _pages.Read(FixedSizeTreePage.ChildAt(p, FixedSizeTreePage.SearchBranch(p, key)));
        }

        var i = FixedSizeTreePage.SearchLeaf(p, key, out var found);
        value = found ? new ReadOnlySpan<byte>(FixedSizeTreePage.Entry(p, i, LeafEntrySize) + 8, ValueSize) : default;
        return found;
    }

    /// <summary>
    /// Looks up ascending <paramref name="keys"/> in one forward walk and copies each found key's value to
    /// <c>values[i * ValueSize..]</c>; a key not in the tree leaves its bytes as they were. Returns how many were found.
    /// Each leaf is read once: a key inside the current leaf is searched from the previous key's position on (one probe
    /// where keys are dense, see <see cref="FixedSizeTreePage.SearchLeafFrom"/>), a key past it climbs only to the
    /// lowest branch whose range holds it. A point
    /// <see cref="TryGet"/> per key descends from the root and looks every page up again: for the ~19,000 matches of a
    /// week among 1,000,000 entries that was most of a time histogram's cost.
    /// </summary>
    public int GetSorted(ReadOnlySpan<long> keys, Span<byte> values)
    {
        _pages.EnsureActive();
        var valueSize = ValueSize;
        if (values.Length != keys.Length * valueSize)
        {
            throw new ArgumentException($"Values of this tree are {valueSize} bytes: {keys.Length * valueSize} bytes are needed for {keys.Length} keys, not {values.Length}.", nameof(values));
        }

        if (keys.IsEmpty)
        {
            return 0;
        }

        // The path to the current leaf: each level's page and the exclusive upper bound of the child taken there
        // (the next separator, or the parent's bound); the root's bound is "none" (long.MaxValue climbs to the root).
        Span<long> pages = stackalloc long[MaxDepth];
        Span<long> upper = stackalloc long[MaxDepth];
        var entrySize = LeafEntrySize;
        var depth = 0;
        byte* leaf = null;
        var leafUpper = long.MinValue;
        var index = 0;
        var count = 0;
        var found = 0;
        var previous = long.MinValue;
        for (var i = 0; i < keys.Length; i++)
        {
            var key = keys[i];
            if (key < previous)
            {
                throw new ArgumentException($"Keys must ascend: {key} follows {previous} at {i}.", nameof(keys));
            }

            previous = key;
            if (leaf == null || key >= leafUpper)
            {
                // Climb to the lowest level whose taken child still holds the key, then descend from that child.
                var level = depth - 1;
                while (level >= 0 && key >= upper[level])
                {
                    level--;
                }

                level++;
                if (level == 0)
                {
                    _pages.CountDescent();
                    pages[0] = RootPage;
                }

                var bound = level == 0 ? long.MaxValue : upper[level - 1];
                var p = _pages.Read(pages[level]);
                while (!FixedSizeTreePage.IsLeaf(p))
                {
                    var child = FixedSizeTreePage.SearchBranch(p, key);
                    if (child + 1 < FixedSizeTreePage.GetCount(p))
                    {
                        bound = FixedSizeTreePage.KeyAt(p, child + 1, FixedSizeTreePage.BranchEntrySize);
                    }

                    upper[level] = bound;
                    var next = FixedSizeTreePage.ChildAt(p, child);
                    level++;
                    pages[level] = next;
                    p = _pages.Read(next);
                }

                depth = level;
                leaf = p;
                leafUpper = bound;
                index = 0;
                count = FixedSizeTreePage.GetCount(p);
            }

            index = FixedSizeTreePage.SearchLeafFrom(leaf, index, count, key, entrySize, out var hit);
            if (hit)
            {
                new ReadOnlySpan<byte>(FixedSizeTreePage.Entry(leaf, index, entrySize) + 8, valueSize).CopyTo(values.Slice(i * valueSize, valueSize));
                found++;
            }

            // A match set's keys are far apart, so each probe is a cache miss, and each search starts where the last
            // ended: the misses queue. Where keys are dense the entry PrefetchDistance keys ahead is predictable, so
            // ask for it now and the misses overlap.
            if (Sse.IsSupported && i + PrefetchDistance < keys.Length)
            {
                var ahead = (ulong)keys[i + PrefetchDistance] - (ulong)key;
                if (ahead < (ulong)(count - index))
                {
                    Sse.Prefetch0(FixedSizeTreePage.Entry(leaf, index + (int)ahead, entrySize));
                }
            }
        }

        return found;
    }

    /// <summary>Whether the key exists.</summary>
    public bool Contains(long key) => TryGet(key, out _);

    /// <summary>Inserts or replaces; <paramref name="value"/> must be <see cref="ValueSize"/> bytes. Returns true if the key was new.</summary>
    public bool Put(long key, ReadOnlySpan<byte> value)
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        if (value.Length != ValueSize)
        {
            throw new ArgumentException($"Values of this tree are {ValueSize} bytes, not {value.Length}.", nameof(value));
        }

        Version++;
        var leafPage = FindLeaf(key);
        var leaf = tx.ModifyPage(leafPage);
        var idx = FixedSizeTreePage.SearchLeaf(leaf, key, out var found);
        if (found)
        {
            value.CopyTo(new Span<byte>(FixedSizeTreePage.Entry(leaf, idx, LeafEntrySize) + 8, ValueSize));
            return false;
        }

        var root = tx.ModifyPage(RootPage);
        FixedSizeTreePage.SetTreeCount(root, FixedSizeTreePage.GetTreeCount(root) + 1);
        Span<byte> entry = stackalloc byte[LeafEntrySize];
        Unsafe.WriteUnaligned(ref entry[0], key);
        value.CopyTo(entry[8..]);
        Insert(tx, _depth, leafPage, idx, entry);
        return true;
    }

    /// <summary>Adds a key to a set (a tree with 0-byte values).</summary>
    public bool Add(long key) => Put(key, default);

    /// <summary>Removes a key; false if it was absent.</summary>
    public bool Delete(long key)
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        var leafPage = FindLeaf(key);
        var idx = FixedSizeTreePage.SearchLeaf(_pages.Read(leafPage), key, out var found);
        if (!found)
        {
            return false;
        }

        Version++;
        FixedSizeTreePage.RemoveAt(tx.ModifyPage(leafPage), idx);
        var root = tx.ModifyPage(RootPage);
        FixedSizeTreePage.SetTreeCount(root, FixedSizeTreePage.GetTreeCount(root) - 1);
        Rebalance(tx, leafPage, _depth);
        return true;
    }

    /// <summary>Opens a cursor for ordered scans.</summary>
    public FixedSizeTreeCursor CreateCursor()
    {
        _pages.EnsureActive();
        return new FixedSizeTreeCursor(this);
    }

    private long FindLeaf(long key)
    {
        if (_pathPages.Length == 0)
        {
            _pathPages = new long[MaxDepth];
            _pathIndex = new int[MaxDepth];
        }

        _pages.CountDescent();
        var page = RootPage;
        var p = _pages.Read(page);
        var depth = 0;
        while (!FixedSizeTreePage.IsLeaf(p))
        {
            var i = FixedSizeTreePage.SearchBranch(p, key);
            _pathPages[depth] = page;
            _pathIndex[depth] = i;
            depth++;
            page = FixedSizeTreePage.ChildAt(p, i);
            p = _pages.Read(page);
        }

        _depth = depth;
        return page;
    }

    private void Insert(WriteTransaction tx, int depth, long page, int index, scoped ReadOnlySpan<byte> entry)
    {
        Span<byte> separatorEntry = stackalloc byte[FixedSizeTreePage.BranchEntrySize];
        while (true)
        {
            var p = tx.ModifyPage(page);
            var isLeaf = FixedSizeTreePage.IsLeaf(p);
            var entrySize = FixedSizeTreePage.EntrySize(p);
            var count = FixedSizeTreePage.GetCount(p);
            if (count < FixedSizeTreePage.MaxEntries(p))
            {
                entry.CopyTo(new Span<byte>(FixedSizeTreePage.InsertAt(p, index), entrySize));
                return;
            }

            if (depth == 0)
            {
                var childPtr = tx.AllocatePage(isLeaf ? PageType.FixedLeaf : PageType.FixedBranch, out var child);
                Buffer.MemoryCopy(p, childPtr, PageHeader.PageSize, PageHeader.PageSize);
                *(long*)childPtr = child;
                FixedSizeTreePage.SetTreeCount(childPtr, 0);
                FixedSizeTreePage.Reset(p, isLeaf: false);
                var e = FixedSizeTreePage.InsertAt(p, 0);
                *(long*)e = long.MinValue;
                *(long*)(e + 8) = child;
                _pathPages[0] = page;
                _pathIndex[0] = 0;
                depth = 1;
                page = child;
                continue;
            }

            // Split: the left keeps [0, splitAt), the right gets the rest; appends keep the left full.
            var rightPtr = tx.AllocatePage(isLeaf ? PageType.FixedLeaf : PageType.FixedBranch, out var right);
            FixedSizeTreePage.Initialize(rightPtr, right, isLeaf, FixedSizeTreePage.GetValueSize(p));
            var splitAt = index == count ? count : count / 2;
            var moved = count - splitAt;
            Buffer.MemoryCopy(FixedSizeTreePage.Entry(p, splitAt, entrySize), FixedSizeTreePage.Entry(rightPtr, 0, entrySize), moved * entrySize, moved * entrySize);
            FixedSizeTreePage.SetCount(rightPtr, moved);
            FixedSizeTreePage.SetCount(p, splitAt);
            if (index <= splitAt && index != count)
            {
                entry.CopyTo(new Span<byte>(FixedSizeTreePage.InsertAt(p, index), entrySize));
            }
            else
            {
                entry.CopyTo(new Span<byte>(FixedSizeTreePage.InsertAt(rightPtr, index - splitAt), entrySize));
            }

            var separator = FixedSizeTreePage.KeyAt(rightPtr, 0, entrySize);
            Unsafe.WriteUnaligned(ref separatorEntry[0], separator);
            Unsafe.WriteUnaligned(ref separatorEntry[8], right);
            entry = separatorEntry;
            depth--;
            page = _pathPages[depth];
            index = _pathIndex[depth] + 1;
        }
    }

    private void Rebalance(WriteTransaction tx, long page, int depth)
    {
        while (true)
        {
            var p = _pages.Read(page);
            if (depth == 0)
            {
                while (!FixedSizeTreePage.IsLeaf(p) && FixedSizeTreePage.GetCount(p) == 1)
                {
                    var child = FixedSizeTreePage.ChildAt(p, 0);
                    var c = _pages.Read(child);
                    var w = tx.ModifyPage(page);
                    var treeCount = FixedSizeTreePage.GetTreeCount(w);
                    Buffer.MemoryCopy(c, w, PageHeader.PageSize, PageHeader.PageSize);
                    *(long*)w = page;
                    FixedSizeTreePage.SetTreeCount(w, treeCount);
                    tx.FreePage(child);
                    p = w;
                }

                return;
            }

            var max = FixedSizeTreePage.MaxEntries(p);
            if (FixedSizeTreePage.GetCount(p) >= max / 4)
            {
                return;
            }

            var parentPage = _pathPages[depth - 1];
            var parent = _pages.Read(parentPage);
            if (FixedSizeTreePage.GetCount(parent) < 2)
            {
                return;
            }

            var pi = _pathIndex[depth - 1];
            var li = pi > 0 ? pi - 1 : pi;
            var ri = li + 1;
            var leftPage = FixedSizeTreePage.ChildAt(parent, li);
            var rightPage = FixedSizeTreePage.ChildAt(parent, ri);
            var r = _pages.Read(rightPage);
            var lc = FixedSizeTreePage.GetCount(_pages.Read(leftPage));
            var rc = FixedSizeTreePage.GetCount(r);
            if (lc + rc > max)
            {
                return;
            }

            var lw = tx.ModifyPage(leftPage);
            var entrySize = FixedSizeTreePage.EntrySize(lw);
            Buffer.MemoryCopy(FixedSizeTreePage.Entry(r, 0, entrySize), FixedSizeTreePage.Entry(lw, lc, entrySize), rc * entrySize, rc * entrySize);
            if (!FixedSizeTreePage.IsLeaf(lw))
            {
                // The right page's first key was minus infinity; in the merged page it is the parent's separator.
                *(long*)FixedSizeTreePage.Entry(lw, lc, entrySize) = FixedSizeTreePage.KeyAt(parent, ri, FixedSizeTreePage.BranchEntrySize);
            }

            FixedSizeTreePage.SetCount(lw, lc + rc);
            FixedSizeTreePage.RemoveAt(tx.ModifyPage(parentPage), ri);
            tx.FreePage(rightPage);
            page = parentPage;
            depth--;
        }
    }
}
