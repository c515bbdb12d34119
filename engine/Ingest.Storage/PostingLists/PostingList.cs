using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Paging;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// A sorted set of non-negative int64 ids (the entries that hold a term, say), stored as
/// compressed leaf pages (<see cref="PostingListLeaf"/>) indexed by a <see cref="FixedSizeTree"/>
/// that maps each leaf's first id to its page number. Leaves hold disjoint, ascending ranges, so
/// leaf i owns the ids from its key up to the next leaf's key.
/// <para>
/// Changes come in sorted batches: <see cref="Update"/> routes each run of additions and removals
/// to the leaf that owns it and merges it there in one pass, so a batch costs one visit per leaf
/// it touches, never one tree search per id. <see cref="Add"/> and <see cref="Remove"/> are the
/// one-id case of the same path.
/// </para>
/// Valid for the transaction that opened it.
/// </summary>
public sealed unsafe class PostingList
{
    private const int LeafCapacity = PageHeader.PageSize - PageHeader.Size;

    private readonly FixedSizeTree _leaves;

    internal PostingList(FixedSizeTree leaves)
    {
        _leaves = leaves;
    }

    public string Name => _leaves.Name;

    /// <summary>Pages of compressed ids.</summary>
    public long LeafCount => _leaves.Count;

    /// <summary>How many ids the list holds; reads every leaf's header (one page per ~65k dense ids).</summary>
    public long Count
    {
        get
        {
            long count = 0;
            var cursor = _leaves.CreateCursor();
            for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
            {
                count += Leaf(LeafPage(cursor)).Count;
            }

            return count;
        }
    }

    /// <summary>Whether <paramref name="id"/> is in the list.</summary>
    public bool Contains(long id)
    {
        var cursor = _leaves.CreateCursor();
        return FindOwner(cursor, id) && Leaf(LeafPage(cursor)).Contains(id);
    }

    /// <summary>Adds one id; false if it was present.</summary>
    public bool Add(long id) => Update([id], []).Added == 1;

    /// <summary>Removes one id; false if it was absent.</summary>
    public bool Remove(long id) => Update([], [id]).Removed == 1;

    /// <summary>
    /// Applies a batch: removes <paramref name="sortedRemovals"/> from the existing ids, then adds
    /// <paramref name="sortedAdditions"/> (so an id in both ends up present). Both must be sorted
    /// ascending and non-negative; adding a present id or removing an absent one does nothing.
    /// One pass: each leaf the batch touches is decoded, merged and rewritten once.
    /// </summary>
    /// <exception cref="ArgumentException">An input is not sorted or holds a negative id.</exception>
    /// <exception cref="InvalidOperationException">The list was opened by a read transaction.</exception>
    public PostingListUpdateResult Update(ReadOnlySpan<long> sortedAdditions, ReadOnlySpan<long> sortedRemovals)
    {
        PostingListLeafMerger.ThrowIfNotSorted(sortedAdditions, nameof(sortedAdditions));
        PostingListLeafMerger.ThrowIfNotSorted(sortedRemovals, nameof(sortedRemovals));
        var tx = _leaves.Pages.Writer;
        var sink = new PageSink(tx, _leaves);
        long added = 0, removed = 0, leavesMerged = 0;
        try
        {
            var additions = sortedAdditions;
            var removals = sortedRemovals;
            var cursor = _leaves.CreateCursor();
            while (!additions.IsEmpty || !removals.IsEmpty)
            {
                var next = additions.IsEmpty ? removals[0] : removals.IsEmpty ? additions[0] : Math.Min(additions[0], removals[0]);
                var hasLeaf = FindOwner(cursor, next);
                long leafKey = 0, leafPage = 0, upper = 0;
                var hasSuccessor = false;
                if (hasLeaf)
                {
                    leafKey = cursor.Key;
                    leafPage = LeafPage(cursor);
                    if (cursor.MoveNext())
                    {
                        upper = cursor.Key;
                        hasSuccessor = true;
                    }
                }

                // The slice of the batch this leaf owns: everything below the next leaf's first id,
                // or all of it for the last leaf (no sentinel bound: long.MaxValue is a valid id).
                var addCount = hasSuccessor ? CountBelow(additions, upper) : additions.Length;
                var removeCount = hasSuccessor ? CountBelow(removals, upper) : removals.Length;
                if (addCount + removeCount == 0)
                {
                    // FindOwner guarantees the owner's range holds `next`; a leaf that took nothing
                    // would repeat forever, so fail loudly instead of spinning.
                    throw new InvalidOperationException($"Posting list '{Name}' routed id {next} to leaf {leafKey}, whose successor starts at {upper}: the leaf index is out of order.");
                }

                ReadOnlySpan<byte> existing = default;
                if (hasLeaf)
                {
                    // Out of the index first: a new leaf may start with the same id.
                    _leaves.Delete(leafKey);
                    existing = new ReadOnlySpan<byte>(tx.GetPage(leafPage) + PageHeader.Size, LeafCapacity);
                    leavesMerged++;
                }

                var result = PostingListLeafMerger.MergeChecked(existing, additions[..addCount], removals[..removeCount], ref sink);
                added += result.Added;
                removed += result.Removed;
                if (hasLeaf)
                {
                    // Only now: the merge read the old leaf, which may live in this transaction's scratch.
                    tx.FreePage(leafPage);
                }

                additions = additions[addCount..];
                removals = removals[removeCount..];
            }
        }
        finally
        {
            sink.Dispose();
            tx.CountPostingListUpdate(leavesMerged);
        }

        return new PostingListUpdateResult(added, removed);
    }

    /// <summary>Enumerates the ids in ascending order, in chunks: see <see cref="PostingListIterator.Fill"/>.</summary>
    public PostingListIterator Iterate() => new(this);

    internal FixedSizeTreeCursor CreateLeafCursor() => _leaves.CreateCursor();

    internal PostingListLeaf Leaf(long page) => new(new ReadOnlySpan<byte>(_leaves.Pages.Read(page) + PageHeader.Size, LeafCapacity));

    internal static long LeafPage(FixedSizeTreeCursor cursor) => BitConverter.ToInt64(cursor.Value);

    /// <summary>
    /// Positions <paramref name="cursor"/> on the leaf that owns <paramref name="id"/>: the last
    /// leaf whose first id is at most <paramref name="id"/>, or the first leaf when
    /// <paramref name="id"/> is below all of them. False when the list has no leaves.
    /// </summary>
    internal static bool FindOwner(FixedSizeTreeCursor cursor, long id)
    {
        if (!cursor.Seek(id))
        {
            return cursor.Last();
        }

        return cursor.Key == id || cursor.MovePrev() || cursor.First();
    }

    private static int CountBelow(ReadOnlySpan<long> sorted, long bound)
    {
        if (sorted.IsEmpty || sorted[^1] < bound)
        {
            return sorted.Length;
        }

        // First index whose id is >= bound.
        int lo = 0, hi = sorted.Length;
        while (lo < hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            if (sorted[mid] < bound)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    /// <summary>
    /// Receives the merge's output leaves into three reused scratch buffers and, as each one is
    /// completed, writes it to a newly allocated page and indexes it by its first id.
    /// </summary>
    private struct PageSink : IPostingListLeafSink, IDisposable
    {
        private const int Buffers = 3;

        private readonly WriteTransaction _tx;
        private readonly FixedSizeTree _leaves;
        private readonly byte* _scratch;
        private int _handedOut;
        private int _completed;

        public PageSink(WriteTransaction tx, FixedSizeTree leaves)
        {
            _tx = tx;
            _leaves = leaves;
            _scratch = (byte*)System.Runtime.InteropServices.NativeMemory.Alloc(Buffers * (nuint)LeafCapacity);
        }

        public Span<byte> NextLeafBuffer()
        {
            // The merge holds at most three buffers at once and completes them in hand-out order,
            // so a ring of three is never overwritten while in use.
            var buffer = new Span<byte>(_scratch + ((_handedOut % Buffers) * LeafCapacity), LeafCapacity);
            _handedOut++;
            return buffer;
        }

        public void LeafCompleted(PostingListLeaf leaf)
        {
            var source = _scratch + ((_completed % Buffers) * LeafCapacity);
            _completed++;
            var page = _tx.AllocatePage(PageType.PostingListLeaf, out var pageNumber);
            Buffer.MemoryCopy(source, page + PageHeader.Size, LeafCapacity, leaf.UsedBytes);
            Span<byte> value = stackalloc byte[sizeof(long)];
            BitConverter.TryWriteBytes(value, pageNumber);
            _leaves.Put(leaf.FirstId, value);
        }

        public readonly void Dispose() => System.Runtime.InteropServices.NativeMemory.Free(_scratch);
    }
}
