using System.Buffers.Binary;
using System.Text;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Verification;

/// <summary>
/// Checks one snapshot: every page reachable from the state page (the free-space bitmaps, the
/// directory of trees and each tree it names, their overflow values and posting list leaves) is
/// read without the verifying accessor and checked for its checksum and page number, the page type
/// its parent expects, key order within the page and within the range its parent gives it, child
/// pointers below the allocated high-water mark, and that no page is reached twice. Pages in use
/// that no structure reaches get their checksum checked too. A damaged page is reported and not
/// descended into, so one bad page yields one report, not a cascade. Pages still in scratch memory
/// were produced by this process and are not re-verified.
/// </summary>
internal sealed unsafe class StorageVerifier(Snapshot snapshot)
{
    private const string RootTree = "$root";
    private const byte KindTree = 1;
    private const byte KindFixed = 2;
    private const byte KindPostingList = 3;
    private const int MaxDepth = 64;
    private readonly HashSet<long> _seen = [];
    private readonly List<DamagedPage> _damaged = [];
    private readonly Dictionary<string, long> _pagesByTree = new(StringComparer.Ordinal);
    private long _nextPage = long.MaxValue;
    private long _checked;
    private int _trees;

    /// <summary>After <see cref="Run"/>: the pages each tree holds (an overflow run counts all its pages), "$root" the directory, "$state" the state page and free-space bitmaps.</summary>
    public IReadOnlyDictionary<string, long> PagesByTree => _pagesByTree;

    public VerificationReport Run()
    {
        var state = Page(StatePage.PageNumber, [PageType.State], "state page", null);
        if (state != null)
        {
            _nextPage = StatePage.GetNextPage(state);
            var bitmaps = StatePage.GetBitmapCount(state);
            var bitmapPages = new byte*[Math.Clamp(bitmaps, 0, StatePage.MaxBitmaps)];
            for (var i = 0; i < bitmapPages.Length; i++)
            {
                bitmapPages[i] = Page(StatePage.GetBitmapPage(state, i), [PageType.FreeSpaceBitmap], "free-space bitmap", null);
            }

            _trees++;
            WalkTree(StatePage.GetRootTreePage(state), RootTree, null, null, 0);
            CheckUnreferenced(bitmapPages);
        }

        return new VerificationReport(snapshot.TxId, _checked, _trees, _damaged);
    }

    private void Damage(long page, string kind, string? tree, string problem) =>
        _damaged.Add(new DamagedPage(page, snapshot.Map.Path, page * PageHeader.PageSize, kind, tree, problem));

    /// <summary>The page, checked; null (and reported) if it is damaged or must not be read.</summary>
    private byte* Page(long page, PageType[] expected, string kind, string? tree)
    {
        if (page < StatePage.PageNumber || (page != StatePage.PageNumber && page >= _nextPage))
        {
            Damage(page, kind, tree, $"a pointer to page {page}, outside the allocated pages 2..{_nextPage - 1}");
            return null;
        }

        if (!_seen.Add(page))
        {
            Damage(page, kind, tree, "reached twice: two structures (or two places in one) point at it");
            return null;
        }

        var inScratch = snapshot.Table.Count != 0 ? snapshot.Table.Find(page, snapshot.TxId) : 0;
        var p = inScratch != 0 ? (byte*)inScratch : snapshot.Map.GetPageUnverified(page);
        if (p == null)
        {
            Damage(page, kind, tree, $"beyond the end of the data file ({snapshot.Map.PageCount} pages)");
            return null;
        }

        if (inScratch == 0 && !PageHeader.Verify(p, page, (snapshot.Map.PageCount - page) * PageHeader.PageSize))
        {
            Damage(page, kind, tree, PageHeader.GetPageNumber(p) != page
                ? $"the page says it is page {PageHeader.GetPageNumber(p)}"
                : "fails its checksum");
            return null;
        }

        var type = PageHeader.GetType(p);
        if (Array.IndexOf(expected, type) < 0)
        {
            Damage(page, kind, tree, $"a {type} page where {string.Join(" or ", expected)} was expected");
            return null;
        }

        _checked++;
        var pages = 1L;
        if (type == PageType.Overflow)
        {
            var run = OverflowPage.PagesFor(OverflowPage.GetValueLength(p));
            pages = run;
            for (var i = 1; i < run; i++)
            {
                _seen.Add(page + i);
            }
        }

        var owner = tree ?? "$state";
        _pagesByTree[owner] = _pagesByTree.GetValueOrDefault(owner) + pages;

        return p;
    }

    /// <summary>Walks a B+Tree below <paramref name="page"/>, whose keys must lie in [lower, upper) (null: unbounded).</summary>
    private void WalkTree(long page, string tree, byte[]? lower, byte[]? upper, int depth)
    {
        var p = Page(page, [PageType.TreeLeaf, PageType.TreeBranch], "tree page", tree);
        if (p == null)
        {
            return;
        }

        if (depth > MaxDepth)
        {
            Damage(page, "tree page", tree, $"deeper than {MaxDepth} levels: a child pointer loops");
            return;
        }

        var leaf = TreePage.IsLeaf(p);
        var count = TreePage.GetCount(p);
        var entriesStart = TreePage.HeaderSize + (count * TreePage.SlotSize);
        if (entriesStart > PageHeader.PageSize || (!leaf && count == 0))
        {
            Damage(page, "tree page", tree, $"an impossible entry count {count}");
            return;
        }

        var keys = new byte[count][];
        for (var i = 0; i < count; i++)
        {
            var offset = (int)(TreePage.Entry(p, i) - p);
            var headerSize = leaf ? TreePage.LeafEntryHeader : TreePage.BranchEntryHeader;
            var e = p + offset;
            if (offset < entriesStart || offset + headerSize > PageHeader.PageSize
                || offset + (leaf ? TreePage.LeafEntrySize(e) : TreePage.BranchEntrySize(e)) > PageHeader.PageSize)
            {
                Damage(page, "tree page", tree, $"entry {i} lies outside the page");
                return;
            }

            keys[i] = (leaf ? TreePage.LeafKey(e) : TreePage.BranchKey(e)).ToArray();
            var isMinusInfinity = !leaf && i == 0;
            if ((i > (leaf ? 0 : 1) && Compare(keys[i - 1], keys[i]) >= 0)
                || (!isMinusInfinity && lower != null && Compare(keys[i], lower) < 0)
                || (!isMinusInfinity && upper != null && Compare(keys[i], upper) >= 0))
            {
                Damage(page, "tree page", tree, $"key {i} is out of order");
                return;
            }
        }

        for (var i = 0; i < count; i++)
        {
            var e = TreePage.Entry(p, i);
            if (!leaf)
            {
                WalkTree(TreePage.BranchChild(e), tree, i == 0 ? lower : keys[i], i + 1 < count ? keys[i + 1] : upper, depth + 1);
                continue;
            }

            if (TreePage.IsOverflow(e))
            {
                var run = TreePage.OverflowPageOf(e);
                var value = Page(run, [PageType.Overflow], "overflow value", tree);
                if (value != null && OverflowPage.GetValueLength(value) != TreePage.LeafValueLength(e))
                {
                    Damage(run, "overflow value", tree, $"holds {OverflowPage.GetValueLength(value)} bytes where its key says {TreePage.LeafValueLength(e)}");
                }
            }
            else if (tree == RootTree)
            {
                WalkNamedTree(keys[i], new ReadOnlySpan<byte>(TreePage.LeafValue(e), TreePage.LeafValueLength(e)), page);
            }
        }
    }

    /// <summary>Follows one descriptor of the directory of trees (layout in <see cref="TreeDirectory"/>).</summary>
    private void WalkNamedTree(byte[] nameUtf8, ReadOnlySpan<byte> descriptor, long directoryPage)
    {
        var name = Encoding.UTF8.GetString(nameUtf8);
        if (descriptor.Length < 16)
        {
            Damage(directoryPage, "tree page", RootTree, $"the descriptor of '{name}' is {descriptor.Length} bytes");
            return;
        }

        var kind = descriptor[0];
        var valueSize = BinaryPrimitives.ReadInt32LittleEndian(descriptor[4..]);
        var root = BinaryPrimitives.ReadInt64LittleEndian(descriptor[8..]);
        _trees++;
        switch (kind)
        {
            case KindTree:
                WalkTree(root, name, null, null, 0);
                break;
            case KindFixed or KindPostingList when valueSize is >= 0 and <= FixedSizeTree.MaxValueSize:
                WalkFixed(root, name, valueSize, kind == KindPostingList, long.MinValue, null, 0);
                break;
            default:
                Damage(directoryPage, "tree page", RootTree, $"the descriptor of '{name}' has kind {kind}, value size {valueSize}");
                break;
        }
    }

    /// <summary>Walks a fixed-size tree (a posting list's index of leaves too) whose keys must lie in [lower, upper).</summary>
    private void WalkFixed(long page, string tree, int valueSize, bool postingList, long lower, long? upper, int depth)
    {
        var p = Page(page, [PageType.FixedLeaf, PageType.FixedBranch], "fixed-size tree page", tree);
        if (p == null)
        {
            return;
        }

        if (depth > MaxDepth)
        {
            Damage(page, "fixed-size tree page", tree, $"deeper than {MaxDepth} levels: a child pointer loops");
            return;
        }

        var leaf = FixedSizeTreePage.IsLeaf(p);
        var count = FixedSizeTreePage.GetCount(p);
        var entrySize = leaf ? 8 + valueSize : FixedSizeTreePage.BranchEntrySize;
        if ((leaf && FixedSizeTreePage.GetValueSize(p) != valueSize) || count * entrySize > FixedSizeTreePage.Capacity || (!leaf && count == 0))
        {
            Damage(page, "fixed-size tree page", tree, $"an impossible entry count {count} or value size {FixedSizeTreePage.GetValueSize(p)}");
            return;
        }

        for (var i = leaf ? 0 : 1; i < count; i++)
        {
            var key = FixedSizeTreePage.KeyAt(p, i, entrySize);
            if ((i > (leaf ? 0 : 1) && FixedSizeTreePage.KeyAt(p, i - 1, entrySize) >= key) || key < lower || (upper is { } u && key >= u))
            {
                Damage(page, "fixed-size tree page", tree, $"key {i} is out of order");
                return;
            }
        }

        for (var i = 0; i < count; i++)
        {
            if (!leaf)
            {
                var childLower = i == 0 ? lower : FixedSizeTreePage.KeyAt(p, i, entrySize);
                long? childUpper = i + 1 < count ? FixedSizeTreePage.KeyAt(p, i + 1, entrySize) : upper;
                WalkFixed(FixedSizeTreePage.ChildAt(p, i), tree, valueSize, postingList, childLower, childUpper, depth + 1);
            }
            else if (postingList)
            {
                var leafPage = *(long*)(FixedSizeTreePage.Entry(p, i, entrySize) + 8);
                Page(leafPage, [PageType.PostingListLeaf], "posting list leaf", tree);
            }
        }
    }

    /// <summary>Checksums of allocated pages no structure reached (their bit in the free-space bitmap is clear).</summary>
    private void CheckUnreferenced(byte*[] bitmaps)
    {
        var end = Math.Min(_nextPage, snapshot.Map.PageCount);
        for (var page = StatePage.PageNumber + 1; page < end; page++)
        {
            if (_seen.Contains(page) || IsFree(bitmaps, page) != false || (snapshot.Table.Count != 0 && snapshot.Table.Find(page, snapshot.TxId) != 0))
            {
                continue;
            }

            var p = snapshot.Map.GetPageUnverified(page);
            if (PageHeader.GetType(p) != PageType.Overflow && !PageHeader.Verify(p, page, (snapshot.Map.PageCount - page) * PageHeader.PageSize))
            {
                Damage(page, "unreferenced page", null, "in use by the free-space map but reached by no tree, and fails its checksum");
            }
        }
    }

    /// <summary>Whether the bitmaps mark the page free; null when its bitmap is missing or damaged.</summary>
    private static bool? IsFree(byte*[] bitmaps, long page)
    {
        var index = page / FreeSpaceBitmap.PagesPerBitmap;
        if (index >= bitmaps.Length || bitmaps[index] == null)
        {
            return null;
        }

        var bit = page % FreeSpaceBitmap.PagesPerBitmap;
        var words = (ulong*)(bitmaps[index] + PageHeader.Size);
        return (words[bit >> 6] & (1UL << (int)(bit & 63))) != 0;
    }

    private static int Compare(byte[] a, byte[] b) => a.AsSpan().SequenceCompareTo(b);
}
