using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Trees;

/// <summary>
/// Sorted batch deletes. One descent, then the leaves in order. Each leaf that loses keys is
/// written once: its remaining entries are copied into a fresh version of the page (not copied
/// whole and then compacted), or appended to the left neighbour written just before it when both
/// fit in one page, which frees the leaf and halves the pages a commit writes after a dense delete.
/// A leaf left empty is dropped from its parent at once. The parent and the tree above it are
/// rebalanced once, when the pass leaves the parent, not once per key.
/// </summary>
public sealed unsafe partial class Tree
{
    /// <summary>
    /// A leaf is appended to its left neighbour while the two fill at most this much of a page: a
    /// quarter stays free so the next inserts there do not split it at once.
    /// </summary>
    private const int MergedLeafFill = TreePage.Capacity * 3 / 4;

    private const int RemovedWords = (TreePage.MaxLeafEntries + 63) / 64;

    /// <summary>
    /// Removes the given keys, which must be in strictly ascending order (absent keys are skipped),
    /// in one ordered pass: each leaf is found once and written once. Keys out of order throw an
    /// <see cref="ArgumentException"/> before anything is removed. Returns how many keys were removed.
    /// </summary>
    public long DeleteSorted(ReadOnlySpan<byte[]> keys) => DeleteSortedCore(new ArrayKeyList(keys));

    /// <inheritdoc cref="DeleteSorted(ReadOnlySpan{byte[]})"/>
    public long DeleteSorted(ReadOnlySpan<ReadOnlyMemory<byte>> keys) => DeleteSortedCore(new MemoryKeyList(keys));

    /// <summary>
    /// Removes <paramref name="keySize"/>-byte keys laid end to end in <paramref name="packedKeys"/>,
    /// in ascending order, in one ordered pass (see <see cref="DeleteSorted(ReadOnlySpan{byte[]})"/>).
    /// </summary>
    public long DeleteSorted(ReadOnlySpan<byte> packedKeys, int keySize) => DeleteSortedCore(new PackedKeyList(packedKeys, keySize));

    // Called once with a long loop: without this it would run as unoptimized tier-0 code until OSR. The same for the
    // helpers it calls per leaf or per key and only a batch uses: a 500k-key batch (100 ms) ran them at tier 0 for most
    // of its time, 25% more CPU than with everything optimized.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long DeleteSortedCore<TKeys>(TKeys keys)
        where TKeys : IKeyList, allows ref struct
    {
        _pages.EnsureActive();
        var tx = _pages.Writer;
        var n = keys.Count;
        for (var k = 1; k < n; k++)
        {
            if (TreePage.CompareKeys(keys[k], keys[k - 1]) <= 0)
            {
                ThrowKeysOutOfOrder(k);
            }
        }

        if (n == 0)
        {
            return 0;
        }

        Version++;
        var removed = stackalloc ulong[RemovedWords]; // bit k: entry k of the leaf being visited goes
        var pass = new DeletePass();
        long deleted = 0;
        var i = 0;
        var fresh = true;
        while (i < n)
        {
            var leafPage = fresh ? FindLeaf(keys[i]) : FindLeafFromPath(keys[i]);
            fresh = false;
            var depth = _depth;
            var hasUpper = LeafUpperBound(depth, out var upper);
            var source = ReadPage(leafPage);
            if (Sse.IsSupported && depth > 0 && i + 1 < n && (!hasUpper || TreePage.CompareKeys(keys[i + 1], upper) < 0))
            {
                // Two or more keys in this leaf: the batch is dense enough that the next leaf most likely has keys too.
                PrefetchNextLeaf(depth);
            }

            new Span<ulong>(removed, RemovedWords).Clear();
            var hits = 0;
            var from = 0;
            var j = i;
            for (; j < n; j++)
            {
                var key = keys[j];
                if (hasUpper && TreePage.CompareKeys(key, upper) >= 0)
                {
                    break;
                }

                var idx = TreePage.SearchLeafNear(source, key, out var found, from);
                if (found)
                {
                    if (hits == 0 && tx.IsModified(leafPage))
                    {
                        // The leaf is rewritten in place (it is already this transaction's copy), so its entries are read
                        // from the writer's buffer. A committed leaf is read where it is: its new version is another
                        // page, and a copy of every leaf first cost a quarter of the pass (8 KiB per leaf, 25k leaves).
                        Buffer.MemoryCopy(source, TempPage, PageHeader.PageSize, PageHeader.PageSize);
                        source = TempPage;
                    }

                    removed[idx >> 6] |= 1UL << idx;
                    hits++;
                    idx++;
                }

                from = idx;
            }

            if (j == i)
            {
                j++; // defensive: the descent routes keys[i] to this leaf, so the loop always consumes it
            }


            if (hits > 0)
            {
                var index = depth > 0 ? _pathIndex[depth - 1] : 0;
                var kept = TreePage.Used(source) - RemovedBytes(source, removed);
                if (kept == 0 && depth > 0)
                {
                    FreeRemovedOverflows(tx, source, removed);
                    tx.FreePage(leafPage);
                    var level = RemoveChild(tx, depth - 1);
                    if (level == depth - 1)
                    {
                        _pathIndex[depth - 1] = index - 1; // the next leaf now sits at index
                        pass.ParentShrunk = true;
                    }
                    else
                    {
                        // The parent went too (it had no other child): rebalance where the removal stopped, descend afresh.
                        if (level >= 0)
                        {
                            Rebalance(tx, _pathPages[level], level);
                        }

                        pass = default;
                        fresh = true;
                    }
                }
                else if (pass.Previous != 0 && pass.PreviousIndex == index - 1 && CanMerge(TreePage.Used(pass.PreviousPtr), kept))
                {
                    FreeRemovedOverflows(tx, source, removed);
                    TreePage.AppendAllBut(pass.PreviousPtr, source, removed);
                    TreePage.RemoveAt(tx.ModifyPage(_pathPages[depth - 1]), index);
                    tx.FreePage(leafPage);
                    _pathIndex[depth - 1] = index - 1; // the left neighbour now covers this leaf's range
                    pass.ParentShrunk = true;
                }
                else
                {
                    // A rebalance that changes nothing writes nothing (not even TempPage, which holds the leaf).
                    if (pass.Previous != 0 && ClosePrevious(tx, ref pass, depth, index))
                    {
                        pass = default;
                        fresh = true;
                        continue; // the tree changed shape: find this leaf again
                    }

                    FreeRemovedOverflows(tx, source, removed);
                    var page = tx.RewritePage(leafPage);
                    if (Sse.IsSupported)
                    {
                        // A fresh version is a scratch page nobody touched lately: ask for the lines the entries will fill
                        // (and the slots) at once rather than let each copy's stores miss one after another.
                        PrefetchRange(page, TreePage.HeaderSize + (TreePage.SlotSize * TreePage.GetCount(source)));
                        PrefetchRange(page + PageHeader.PageSize - kept, kept);
                    }

                    TreePage.BeginRewrite(page, source);
                    TreePage.AppendAllBut(page, source, removed);
                    pass.Previous = leafPage;
                    pass.PreviousPtr = page;
                    pass.PreviousIndex = index;
                }

                deleted += hits;
            }

            i = j;
            if (!fresh && i < n && depth > 0 && LeafUpperBound(depth - 1, out var parentUpper) && TreePage.CompareKeys(keys[i], parentUpper) >= 0)
            {
                // The next key lies beyond this parent: settle it before the path moves on.
                fresh = CloseParent(tx, ref pass, depth);
                pass = default;
            }
        }

        if (!fresh && _depth > 0)
        {
            CloseParent(tx, ref pass, _depth);
        }

        if (deleted > 0)
        {
            var root = tx.ModifyPage(RootPage);
            TreePage.SetTreeCount(root, TreePage.GetTreeCount(root) - deleted);
        }

        return deleted;
    }

    /// <summary>
    /// Asks for the path's next sibling leaf while this one is worked on. A leaf of a freshly loaded tree stores its
    /// entries in insertion order, so the pass reads them at random: one dependent miss after another, a quarter of a
    /// dense pass's time. Fetched a leaf ahead, they arrive while the CPU works on the one before. Only the slots and
    /// the entry heap are asked for, read from the sibling's header, whose line was asked for one leaf earlier (with the
    /// sibling after it): the free middle of a page is a third of it after a random load, and the memory system,
    /// not the CPU, limits a dense pass. (Every 128 bytes instead of every line lost the gain: this CPU does not fetch
    /// the pair line.)
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // per leaf of a sorted batch: see DeleteSortedCore
    private void PrefetchNextLeaf(int depth)
    {
        var parent = ReadPage(_pathPages[depth - 1]);
        var next = _pathIndex[depth - 1] + 1;
        var count = TreePage.GetCount(parent);
        if (next >= count)
        {
            return;
        }

        if (next + 1 < count)
        {
            Sse.Prefetch0(_pages.Peek(TreePage.BranchChild(TreePage.Entry(parent, next + 1))));
        }

        // Unverified: a leaf the pass may not reach must not cost its checksum or fail the batch. Its header only
        // bounds what is asked for (a prefetch never faults), so a damaged one costs at most a page of useless requests.
        var p = _pages.Peek(TreePage.BranchChild(TreePage.Entry(parent, next)));
        if (p == null)
        {
            return;
        }

        var slotsEnd = Math.Min(TreePage.HeaderSize + (TreePage.SlotSize * TreePage.GetCount(p)), PageHeader.PageSize);
        for (var off = 64; off < slotsEnd; off += 64)
        {
            Sse.Prefetch0(p + off);
        }

        for (var off = TreePage.GetUpper(p) & ~63; off < PageHeader.PageSize; off += 64)
        {
            Sse.Prefetch0(p + off);
        }
    }

    /// <summary>
    /// <see cref="PageSource.Read"/> as one call. Inlined, each read is the dirty map's and the page table's probes
    /// (700 bytes of code): five of them in this file doubled the code the JIT compiles on a process's first sorted
    /// delete, 10 ms of a 50k-key batch's 15, for a call per leaf that costs nanoseconds.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private byte* ReadPage(long page) => _pages.Read(page);

    private static void PrefetchRange(byte* from, int bytes)
    {
        for (var off = 0; off < bytes; off += 64)
        {
            Sse.Prefetch0(from + off);
        }
    }

    // Out of line: the message's formatting was a fifth of the code the JIT compiled for DeleteSortedCore.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowKeysOutOfOrder(int index) =>
        throw new ArgumentException($"Keys must be in strictly ascending order (index {index}).", "keys");

    private static bool CanMerge(int leftUsed, int rightUsed)
    {
        var total = leftUsed + rightUsed;
        return total <= MergedLeafFill || ((leftUsed < TreePage.MinFill || rightUsed < TreePage.MinFill) && total <= TreePage.Capacity);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // see DeleteSortedCore
    private static int RemovedBytes(byte* leaf, ulong* removed)
    {
        var bytes = 0;
        for (var w = 0; w < RemovedWords; w++)
        {
            for (var bits = removed[w]; bits != 0; bits &= bits - 1)
            {
                bytes += TreePage.LeafEntrySize(TreePage.Entry(leaf, (w * 64) + System.Numerics.BitOperations.TrailingZeroCount(bits))) + TreePage.SlotSize;
            }
        }

        return bytes;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void FreeRemovedOverflows(WriteTransaction tx, byte* leaf, ulong* removed)
    {
        for (var w = 0; w < RemovedWords; w++)
        {
            for (var bits = removed[w]; bits != 0; bits &= bits - 1)
            {
                FreeOverflow(tx, TreePage.Entry(leaf, (w * 64) + System.Numerics.BitOperations.TrailingZeroCount(bits)));
            }
        }
    }

    /// <summary>
    /// Done with the leaf written last (the path is at <paramref name="index"/> of the same parent):
    /// if it is underfull, the usual rebalance merges it with a sibling. True if the tree changed shape.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)] // once per parent: inlined at its three call sites it only grew the code to compile
    private bool ClosePrevious(WriteTransaction tx, ref DeletePass pass, int depth, int index)
    {
        var previous = pass.Previous;
        pass.Previous = 0;
        if (TreePage.Used(pass.PreviousPtr) >= TreePage.MinFill)
        {
            return false;
        }

        _pathIndex[depth - 1] = pass.PreviousIndex;
        if (Rebalance(tx, previous, depth))
        {
            return true;
        }

        _pathIndex[depth - 1] = index;
        return false;
    }

    /// <summary>The pass leaves the parent of the path's leaf: settles the last leaf written, then the parent if it lost children. True if the tree changed shape.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)] // once per parent, see ClosePrevious
    private bool CloseParent(WriteTransaction tx, ref DeletePass pass, int depth)
    {
        if (pass.Previous != 0 && ClosePrevious(tx, ref pass, depth, _pathIndex[depth - 1]))
        {
            return true;
        }

        return pass.ParentShrunk && Rebalance(tx, _pathPages[depth - 1], depth - 1);
    }

    /// <summary>
    /// Removes the child at the path's index from the branch at <paramref name="level"/> of the path.
    /// A branch that had no other child is freed and removed from its own parent the same way; the
    /// root instead becomes an empty leaf. Returns the level of the branch that kept entries (-1: the root emptied).
    /// </summary>
    private int RemoveChild(WriteTransaction tx, int level)
    {
        while (true)
        {
            var page = _pathPages[level];
            var p = tx.ModifyPage(page);
            if (TreePage.GetCount(p) > 1)
            {
                var index = _pathIndex[level];
                TreePage.RemoveAt(p, index);
                if (index == 0)
                {
                    TreePage.ClearFirstBranchKey(p);
                }

                return level;
            }

            if (level == 0)
            {
                TreePage.Reset(p, isLeaf: true);
                return -1;
            }

            tx.FreePage(page);
            level--;
        }
    }

    /// <summary>State of a sorted delete between leaves.</summary>
    private struct DeletePass
    {
        /// <summary>The leaf written last in the current parent (0: none): the next leaf may be appended to it.</summary>
        public long Previous;

        public byte* PreviousPtr;

        /// <summary>Its index in the parent.</summary>
        public int PreviousIndex;

        /// <summary>The current parent lost children in this pass: it is rebalanced when the pass leaves it.</summary>
        public bool ParentShrunk;
    }
}
