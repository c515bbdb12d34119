using System.Runtime.CompilerServices;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Paging;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Transactions;
using Ingest.Storage.Trees;

namespace Ingest.Storage;

/// <summary>
/// The one write transaction of an environment. Pages it modifies are copied into scratch
/// memory; <see cref="Commit"/> journals them with one write and one sync and publishes them to
/// later read transactions. Disposing without committing aborts. Not thread-safe.
/// </summary>
public sealed unsafe class WriteTransaction : IDisposable
{
    private readonly StorageEnvironment _env;
    private readonly DirtyPageMap _dirty;
    private readonly int _slot;
    private readonly long _token;
    private readonly Dictionary<string, object> _openTrees = new(StringComparer.Ordinal);
    private bool _done;
    private long _pageAccesses;
    private long _descents;
    private long _postingListUpdates;
    private long _postingListLeavesMerged;

    internal WriteTransaction(StorageEnvironment env, Snapshot baseSnapshot, int slot, long token, DirtyPageMap dirty)
    {
        _env = env;
        BaseSnapshot = baseSnapshot;
        _slot = slot;
        _token = token;
        _dirty = dirty;
    }

    /// <summary>The id this transaction gets if it commits.</summary>
    public long TransactionId => BaseSnapshot.TxId + 1;

    internal Snapshot BaseSnapshot { get; }

    /// <summary>How many pages, descents and posting list merges this transaction's trees used so far.</summary>
    public TransactionCounters Counters => new(_pageAccesses, _descents, _postingListUpdates, _postingListLeavesMerged);

    internal StorageEnvironment Environment => _env;

    /// <summary>Pages this transaction has modified or allocated so far (they wait in scratch memory until commit).</summary>
    internal int DirtyPageCount => _dirty.Count;

    /// <summary>16 KiB of native scratch trees use while modifying pages (see Tree).</summary>
    internal byte* TreeBuffers => _env.WriterBuffers;

    /// <summary>Opens the named tree, creating it if it does not exist.</summary>
    public Tree CreateTree(string name)
    {
        EnsureActive();
        if (_openTrees.TryGetValue(name, out var cached))
        {
            return cached as Tree ?? throw new InvalidOperationException($"'{name}' is not a Tree.");
        }

        var tree = TreeDirectory.OpenTree(new PageSource(this), name) ?? TreeDirectory.CreateTree(this, name);
        _openTrees[name] = tree;
        return tree;
    }

    /// <summary>Opens the named tree, or returns null if it does not exist.</summary>
    public Tree? OpenTree(string name)
    {
        EnsureActive();
        if (_openTrees.TryGetValue(name, out var cached))
        {
            return cached as Tree ?? throw new InvalidOperationException($"'{name}' is not a Tree.");
        }

        var tree = TreeDirectory.OpenTree(new PageSource(this), name);
        if (tree != null)
        {
            _openTrees[name] = tree;
        }

        return tree;
    }

    /// <summary>Opens the named fixed-size tree, creating it with <paramref name="valueSize"/>-byte values if it does not exist.</summary>
    public FixedSizeTree CreateFixedSizeTree(string name, int valueSize)
    {
        EnsureActive();
        var tree = OpenFixedSizeTree(name);
        if (tree != null)
        {
            if (tree.ValueSize != valueSize)
            {
                throw new InvalidOperationException($"Fixed-size tree '{name}' has {tree.ValueSize}-byte values, not {valueSize}.");
            }

            return tree;
        }

        tree = TreeDirectory.CreateFixedSizeTree(this, name, valueSize);
        _openTrees[name] = tree;
        return tree;
    }

    /// <summary>Opens the named fixed-size tree, or returns null if it does not exist.</summary>
    public FixedSizeTree? OpenFixedSizeTree(string name)
    {
        EnsureActive();
        if (_openTrees.TryGetValue(name, out var cached))
        {
            return cached as FixedSizeTree ?? throw new InvalidOperationException($"'{name}' is not a FixedSizeTree.");
        }

        var tree = TreeDirectory.OpenFixedSizeTree(new PageSource(this), name);
        if (tree != null)
        {
            _openTrees[name] = tree;
        }

        return tree;
    }

    /// <summary>Opens the named posting list, creating it empty if it does not exist.</summary>
    public PostingList CreatePostingList(string name)
    {
        var list = OpenPostingList(name);
        if (list == null)
        {
            list = TreeDirectory.CreatePostingList(this, name);
            _openTrees[name] = list;
        }

        return list;
    }

    /// <summary>Opens the named posting list, or returns null if it does not exist.</summary>
    public PostingList? OpenPostingList(string name)
    {
        EnsureActive();
        if (_openTrees.TryGetValue(name, out var cached))
        {
            return cached as PostingList ?? throw new InvalidOperationException($"'{name}' is not a PostingList.");
        }

        var list = TreeDirectory.OpenPostingList(new PageSource(this), name);
        if (list != null)
        {
            _openTrees[name] = list;
        }

        return list;
    }

    /// <summary>Makes the changes durable (per the environment's sync mode) and visible to later transactions.</summary>
    public void Commit()
    {
        EnsureActive();
        if (_dirty.Count > 0)
        {
            var txId = TransactionId;
            StatePage.SetTxId(ModifyPage(StatePage.PageNumber), txId);
            _env.CommitPages(txId, _dirty);
            _dirty.Clear();
        }

        Finish();
    }

    /// <summary>Aborts the transaction unless it committed.</summary>
    public void Dispose()
    {
        if (_done)
        {
            return;
        }

        Abort();
        Finish();
    }

    internal void AbortFromEnvironment()
    {
        if (!_done)
        {
            Abort();
            _done = true;
        }
    }

    private void Abort()
    {
        foreach (ref readonly var v in _dirty.RawEntries)
        {
            if (v.Page != 0)
            {
                _env.Scratch.FreePages((byte*)v.Pointer, v.Pages);
            }
        }

        _dirty.Clear();
    }

    private void Finish()
    {
        _done = true;
        _env.EndWrite(this, _slot, _token);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void EnsureActive()
    {
        if (_done)
        {
            ThrowDisposed();
        }
    }

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(WriteTransaction));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal byte* GetPage(long page)
    {
        _pageAccesses++;
        var dirty = _dirty.Find(page);
        return dirty != 0 ? (byte*)dirty : BaseSnapshot.GetPage(page);
    }

    /// <summary><see cref="GetPage"/> without verifying a data file page or counting an access: only to prefetch.</summary>
    internal byte* PeekPage(long page)
    {
        var dirty = _dirty.Find(page);
        return dirty != 0 ? (byte*)dirty : BaseSnapshot.GetPageUnverified(page);
    }

    /// <summary>True if this transaction already has its own copy of <paramref name="page"/>.</summary>
    internal bool IsModified(long page) => _dirty.Find(page) != 0;

    internal void CountDescent() => _descents++;

    internal void CountPostingListUpdate(long leavesMerged)
    {
        _postingListUpdates++;
        _postingListLeavesMerged += leavesMerged;
    }

    /// <summary>A writable copy of <paramref name="page"/>, made on first modification in this transaction.</summary>
    internal byte* ModifyPage(long page)
    {
        _pageAccesses++;
        var dirty = _dirty.Find(page);
        if (dirty != 0)
        {
            return (byte*)dirty;
        }

        var source = BaseSnapshot.GetPage(page);
        var copy = _env.Scratch.AllocatePages(1);
        Buffer.MemoryCopy(source, copy, PageHeader.PageSize, PageHeader.PageSize);

        // The source stays readable until commit (this transaction's snapshot holds it), so the
        // journal can record only the bytes that changed.
        _dirty.Add(new PageVersion { Page = page, Base = (nint)source, Pointer = (nint)copy, Pages = 1 });
        return copy;
    }

    /// <summary>
    /// A writable version of <paramref name="page"/> for a caller that writes all of it anew (header,
    /// slots, entries): like <see cref="ModifyPage"/>, but a page not yet modified in this transaction
    /// is not copied first, so the result holds garbage. A page already modified is returned as it is.
    /// </summary>
    internal byte* RewritePage(long page)
    {
        _pageAccesses++;
        var dirty = _dirty.Find(page);
        if (dirty != 0)
        {
            return (byte*)dirty;
        }

        var copy = _env.Scratch.AllocatePages(1);
        _dirty.Add(new PageVersion { Page = page, Pointer = (nint)copy, Pages = 1 });
        return copy;
    }

    internal byte* AllocatePage(PageType type, out long pageNumber)
    {
        pageNumber = AllocatePageNumbers(1);
        var p = _env.Scratch.AllocatePages(1);
        if (type is PageType.TreeLeaf or PageType.TreeBranch)
        {
            TreePage.Initialize(p, pageNumber, type == PageType.TreeLeaf);
        }
        else
        {
            PageHeader.Initialize(p, pageNumber, type);
        }

        _dirty.Add(new PageVersion { Page = pageNumber, Pointer = (nint)p, Pages = 1 });
        return p;
    }

    /// <summary>Allocates consecutive pages for an overflow value; returns the first page.</summary>
    internal byte* AllocateRun(int pages, out long pageNumber)
    {
        pageNumber = AllocatePageNumbers(pages);
        var p = _env.Scratch.AllocatePages(pages);
        PageHeader.Initialize(p, pageNumber, PageType.Overflow);
        _dirty.Add(new PageVersion { Page = pageNumber, Pointer = (nint)p, Pages = pages });
        return p;
    }

    internal void FreePage(long page) => FreeRun(page, 1);

    internal void FreeRun(long page, int pages)
    {
        if (_dirty.Remove(page, out var v))
        {
            _env.Scratch.FreePages((byte*)v.Pointer, v.Pages);
        }

        var state = ModifyPage(StatePage.PageNumber);
        for (var i = 0; i < pages; i++)
        {
            var p = page + i;
            var bitmap = EnsureBitmap(state, (int)(p / FreeSpaceBitmap.PagesPerBitmap));
            var bit = p % FreeSpaceBitmap.PagesPerBitmap;
            var words = (ulong*)(bitmap + PageHeader.Size);
            words[bit >> 6] |= 1UL << (int)(bit & 63);
        }

        StatePage.SetFreeCount(state, StatePage.GetFreeCount(state) + pages);
    }

    private byte* EnsureBitmap(byte* state, int index)
    {
        var count = StatePage.GetBitmapCount(state);
        while (count <= index)
        {
            if (count >= StatePage.MaxBitmaps)
            {
                throw new InvalidOperationException("The data file reached the maximum size the free-space map can describe.");
            }

            // Bitmap pages come from the end of the file, never from the free space they describe.
            var next = StatePage.GetNextPage(state);
            StatePage.SetNextPage(state, next + 1);
            var p = _env.Scratch.AllocatePages(1);
            PageHeader.Initialize(p, next, PageType.FreeSpaceBitmap);
            _dirty.Add(new PageVersion { Page = next, Pointer = (nint)p, Pages = 1 });
            StatePage.SetBitmapPage(state, count, next);
            count++;
            StatePage.SetBitmapCount(state, count);
        }

        return ModifyPage(StatePage.GetBitmapPage(state, index));
    }

    private long AllocatePageNumbers(int pages)
    {
        var state = ModifyPage(StatePage.PageNumber);
        if (StatePage.GetFreeCount(state) >= pages)
        {
            var found = FindFreeRun(state, pages);
            if (found >= 0)
            {
                StatePage.SetFreeCount(state, StatePage.GetFreeCount(state) - pages);
                return found;
            }
        }

        var next = StatePage.GetNextPage(state);
        StatePage.SetNextPage(state, next + pages);
        return next;
    }

    /// <summary>Finds <paramref name="pages"/> consecutive free pages, clears their bits and returns the first, or -1.</summary>
    private long FindFreeRun(byte* state, int pages)
    {
        var bitmaps = StatePage.GetBitmapCount(state);
        for (var b = 0; b < bitmaps; b++)
        {
            var bitmapPage = StatePage.GetBitmapPage(state, b);
            var words = (ulong*)(GetPage(bitmapPage) + PageHeader.Size);
            long runStart = -1;
            var runLength = 0;
            for (var w = 0; w < FreeSpaceBitmap.WordsPerBitmap; w++)
            {
                var word = words[w];
                if (word == 0)
                {
                    runLength = 0;
                    continue;
                }

                if (pages == 1)
                {
                    var bit = System.Numerics.BitOperations.TrailingZeroCount(word);
                    var writable = (ulong*)(ModifyPage(bitmapPage) + PageHeader.Size);
                    writable[w] &= ~(1UL << bit);
                    return (b * FreeSpaceBitmap.PagesPerBitmap) + (w * 64L) + bit;
                }

                for (var bit = 0; bit < 64; bit++)
                {
                    if ((word & (1UL << bit)) == 0)
                    {
                        runLength = 0;
                        continue;
                    }

                    if (runLength == 0)
                    {
                        runStart = (w * 64L) + bit;
                    }

                    if (++runLength == pages)
                    {
                        var writable = (ulong*)(ModifyPage(bitmapPage) + PageHeader.Size);
                        for (var i = runStart; i < runStart + pages; i++)
                        {
                            writable[i >> 6] &= ~(1UL << (int)(i & 63));
                        }

                        return (b * FreeSpaceBitmap.PagesPerBitmap) + runStart;
                    }
                }
            }
        }

        return -1;
    }
}
