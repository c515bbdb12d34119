using System.Buffers;
using System.Diagnostics;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// Applies sorted additions and removals to one leaf in a single pass and writes the result as
/// one or more leaves, or none when everything was removed. This is the per-page step of
/// PostingList.Update: the tree hands each leaf the slice of the batch that routes to it.
/// Blocks the batch does not touch are copied as encoded, without decoding; the others are
/// decoded, merged (runs between two changes are copied in bulk, not id by id) and re-packed
/// 128 ids to a block. The leaf's last block is always re-packed, so that appends of increasing
/// ids fill it instead of leaving a trail of short blocks. Output leaves are filled greedily;
/// an overflow caused by inserts among existing ids evens out the last two (see
/// <c>Output.Finish</c>). Scratch is a few stack blocks of ids, the directory scratch (stack for
/// pages up to 8 KiB, pooled above) and, for an evened-out split, a pooled byte array: no allocation
/// in steady state.
/// </summary>
internal static class PostingListLeafMerger
{
    private const int StackDirectoryEntries = 512;

    /// <summary>Fewest staged ids written as a block of their own ahead of a block copied as is; fewer are merged with it.</summary>
    private const int MinFlushedBlock = PostingListLeaf.MaxIdsPerBlock / 2;

    /// <summary>
    /// Merges <paramref name="additions"/> and <paramref name="removals"/> into
    /// <paramref name="existingLeaf"/> (empty for none) and writes the result into buffers from
    /// <paramref name="sink"/>. Both inputs are sorted ascending; duplicates within an input are
    /// harmless. Adding a present id or removing an absent one does nothing; an id in both
    /// inputs ends up present (removals apply to the existing contents, then additions), which is
    /// what re-indexing a document that keeps a term needs.
    /// </summary>
    /// <exception cref="ArgumentException">An input is not sorted or holds a negative id.</exception>
    public static PostingListMergeResult Merge<TSink>(ReadOnlySpan<byte> existingLeaf, ReadOnlySpan<long> additions, ReadOnlySpan<long> removals, ref TSink sink)
        where TSink : IPostingListLeafSink
    {
        ThrowIfNotSorted(additions, nameof(additions));
        ThrowIfNotSorted(removals, nameof(removals));
        return MergeChecked(existingLeaf, additions, removals, ref sink);
    }

    /// <summary>
    /// <see cref="Merge"/> for inputs the caller has already checked: PostingList.Update checks
    /// the whole batch once and hands each leaf a slice of it, so the slices are not checked again.
    /// </summary>
    internal static PostingListMergeResult MergeChecked<TSink>(ReadOnlySpan<byte> existingLeaf, ReadOnlySpan<long> additions, ReadOnlySpan<long> removals, ref TSink sink)
        where TSink : IPostingListLeafSink
    {
        var existing = existingLeaf.IsEmpty ? default : new PostingListLeaf(existingLeaf);
        var existingBlocks = existingLeaf.IsEmpty ? 0 : existing.BlockCount;

        Span<long> current = stackalloc long[PostingListLeaf.MaxIdsPerBlock];

        // Room for a partial block plus a whole one, for realigning before a block copied as is.
        Span<long> staged = stackalloc long[2 * PostingListLeaf.MaxIdsPerBlock];
        scoped var output = new Output<TSink>(ref sink, stackalloc PostingListBlockEntry[StackDirectoryEntries]);
        try
        {
            var block = 0;
            int currentCount = 0, ci = 0, ai = 0, ri = 0, stagedCount = 0;
            long added = 0, removed = 0;
            while (true)
            {
                if (ci == currentCount && block < existingBlocks)
                {
                    // A block the batch does not touch (nothing to add or remove before the next
                    // block starts) is copied as encoded. Not the last block: appends land there and
                    // should fill it rather than start a new one.
                    if (block + 1 < existingBlocks)
                    {
                        var nextFirst = existing.BlockFirstId(block + 1);
                        if ((ai == additions.Length || additions[ai] >= nextFirst) && (ri == removals.Length || removals[ri] >= nextFirst))
                        {
                            if (stagedCount == 0 || stagedCount >= MinFlushedBlock)
                            {
                                output.AppendAll(staged[..stagedCount]);
                                stagedCount = 0;

                                // The run of untouched blocks: up to the block holding the next change, never the last.
                                var nextChange = Math.Min(
                                    ai < additions.Length ? additions[ai] : long.MaxValue,
                                    ri < removals.Length ? removals[ri] : long.MaxValue);
                                var runEnd = Math.Min(existing.FindBlock(nextChange), existingBlocks - 1);
                                var copied = output.AppendEncoded(existing.Directory[block..runEnd], existing.Data);
                                block += copied;
                                if (block == runEnd)
                                {
                                    continue;
                                }

                                // The next block does not fit whole: decode it below, so the leaf fills up exactly.
                            }
                            else
                            {
                                // Too few staged ids to stand as a block: take this block's ids along,
                                // write one or two blocks, and copy the following blocks as they are.
                                stagedCount += existing.DecodeBlock(block++, staged[stagedCount..]);
                                var half = stagedCount <= PostingListLeaf.MaxIdsPerBlock ? stagedCount : stagedCount / 2;
                                output.AppendAll(staged[..half]);
                                output.AppendAll(staged[half..stagedCount]);
                                stagedCount = 0;
                                continue;
                            }
                        }
                    }

                    currentCount = existing.DecodeBlock(block++, current);
                    ci = 0;
                }

                var haveExisting = ci < currentCount;
                var haveAddition = ai < additions.Length;
                if (!haveExisting && !haveAddition)
                {
                    break;
                }

                if (!haveExisting)
                {
                    added += AppendTail(additions[ai..], staged, ref stagedCount, ref output);
                    break;
                }

                // The rest of this existing block lies below the next addition and the next
                // removal: copy it without looking at each id.
                if (haveExisting
                    && (!haveAddition || additions[ai] > current[currentCount - 1])
                    && (ri == removals.Length || removals[ri] > current[currentCount - 1]))
                {
                    while (ci < currentCount)
                    {
                        var take = Math.Min(currentCount - ci, PostingListLeaf.MaxIdsPerBlock - stagedCount);
                        current.Slice(ci, take).CopyTo(staged[stagedCount..]);
                        ci += take;
                        stagedCount += take;
                        if (stagedCount == PostingListLeaf.MaxIdsPerBlock)
                        {
                            output.AppendAll(staged[..stagedCount]);
                            stagedCount = 0;
                        }
                    }

                    continue;
                }

                long id;
                if (haveExisting && (!haveAddition || current[ci] <= additions[ai]))
                {
                    id = current[ci++];
                    if (haveAddition && additions[ai] == id)
                    {
                        // Present and added: keep, whatever the removals say.
                        ai = SkipEqual(additions, ai, id);
                    }
                    else
                    {
                        while (ri < removals.Length && removals[ri] < id)
                        {
                            ri++;
                        }

                        if (ri < removals.Length && removals[ri] == id)
                        {
                            removed++;
                            continue;
                        }
                    }
                }
                else
                {
                    id = additions[ai];
                    ai = SkipEqual(additions, ai, id);
                    added++;
                }

                Debug.Assert(stagedCount == 0 || staged[stagedCount - 1] < id, "The merged ids must be strictly increasing.");
                staged[stagedCount++] = id;
                if (stagedCount == PostingListLeaf.MaxIdsPerBlock)
                {
                    output.AppendAll(staged[..stagedCount]);
                    stagedCount = 0;
                }
            }

            output.AppendAll(staged[..stagedCount]);
            output.Finish(existingBlocks == 0 ? -1 : existing.LastId);
            return new PostingListMergeResult(output.Leaves, output.Count, added, removed);
        }
        finally
        {
            output.Dispose();
        }
    }

    /// <summary>
    /// Checks an input is sorted ascending and non-negative: a contract at the API boundary, so it
    /// throws in every build. One compare per id, no branch in the loop. Not also a Debug.Assert:
    /// on .NET a failed assert fails the process fast, which would take the test host down with
    /// the tests that check this exception.
    /// </summary>
    public static void ThrowIfNotSorted(ReadOnlySpan<long> ids, string paramName)
    {
        if (ids.IsEmpty)
        {
            return;
        }

        var sorted = ids[0] >= 0;
        for (var i = 1; i < ids.Length; i++)
        {
            sorted &= ids[i] >= ids[i - 1];
        }

        if (!sorted)
        {
            ThrowUnsorted(ids, paramName);
        }
    }

    private static void ThrowUnsorted(ReadOnlySpan<long> ids, string paramName)
    {
        if (ids[0] < 0)
        {
            throw new ArgumentException($"Posting-list ids must be non-negative, got {ids[0]} at index 0.", paramName);
        }

        for (var i = 1; i < ids.Length; i++)
        {
            if (ids[i] < ids[i - 1])
            {
                throw new ArgumentException($"Posting-list ids must be sorted ascending: {ids[i]} follows {ids[i - 1]} at index {i}.", paramName);
            }
        }
    }

    /// <summary>
    /// The existing ids are all written and only additions remain, each above everything written
    /// so far (equal ones were skipped along with the id they repeat): stage them a block at a
    /// time, dropping repeats. Returns how many were added. This is the whole merge when a list
    /// is built from scratch or grows at its end.
    /// </summary>
    private static long AppendTail<TSink>(ReadOnlySpan<long> tail, Span<long> staged, ref int stagedCount, scoped ref Output<TSink> output)
        where TSink : IPostingListLeafSink
    {
        var previous = stagedCount > 0 ? staged[stagedCount - 1] : -1;
        long count = 0;
        while (!tail.IsEmpty)
        {
            var take = Math.Min(PostingListLeaf.MaxIdsPerBlock - stagedCount, tail.Length);
            var chunk = tail[..take];
            tail = tail[take..];
            var distinct = chunk[0] > previous;
            for (var i = 1; i < chunk.Length; i++)
            {
                distinct &= chunk[i] > chunk[i - 1];
            }

            if (distinct)
            {
                chunk.CopyTo(staged[stagedCount..]);
                stagedCount += take;
                count += take;
                previous = chunk[^1];
            }
            else
            {
                foreach (var id in chunk)
                {
                    if (id > previous)
                    {
                        staged[stagedCount++] = id;
                        count++;
                        previous = id;
                    }
                }
            }

            if (stagedCount == PostingListLeaf.MaxIdsPerBlock)
            {
                output.AppendAll(staged[..stagedCount]);
                stagedCount = 0;
            }
        }

        return count;
    }

    private static int SkipEqual(ReadOnlySpan<long> ids, int index, long id)
    {
        do
        {
            index++;
        }
        while (index < ids.Length && ids[index] == id);
        return index;
    }

    /// <summary>
    /// The leaf being written, the sink it goes to, and the directory scratch (stack, or pooled
    /// for pages over 8 KiB). The last two completed leaves are held back from the sink until the
    /// merge ends or a third completes, so that a split can be evened out (see <see cref="Finish"/>).
    /// </summary>
    private ref struct Output<TSink>
        where TSink : IPostingListLeafSink
    {
        private readonly ref TSink _sink;
        private Span<PostingListBlockEntry> _directory;
        private PostingListBlockEntry[]? _rented;
        private Span<byte> _buffer;
        private PostingListLeafWriter _writer;
        private bool _open;
        private Span<byte> _previous;
        private Span<byte> _last;

        public Output(ref TSink sink, Span<PostingListBlockEntry> directory)
        {
            _sink = ref sink;
            _directory = directory;
        }

        public int Leaves { get; private set; }

        public long Count { get; private set; }

        /// <summary>Appends up to a block of ids, spilling into new leaves as they fill (a fresh leaf always takes at least one id).</summary>
        public void AppendAll(scoped ReadOnlySpan<long> ids)
        {
            while (!ids.IsEmpty)
            {
                Open();
                var appended = _writer.Append(ids);
                if (appended == ids.Length)
                {
                    return;
                }

                CompleteLeaf();
                ids = ids[appended..];
            }
        }

        /// <summary>Copies whole encoded blocks into the current leaf, as many as fit; returns how many.</summary>
        public int AppendEncoded(scoped ReadOnlySpan<PostingListBlockEntry> entries, scoped ReadOnlySpan<byte> data)
        {
            Open();
            return _writer.AppendEncoded(entries, data);
        }

        /// <summary>
        /// Completes the open leaf and hands the held ones to the sink. Leaves are filled greedily,
        /// which is right for appends (ids past <paramref name="existingLastId"/>: the earlier leaves
        /// stay full and the last one fills up with later appends). When the overflow instead pushed
        /// existing ids into a last leaf that is under half full, as inserts into a full leaf do,
        /// the last two leaves are re-split evenly, like a B+Tree split, so that the next inserts
        /// in that range do not split a full leaf again.
        /// </summary>
        public void Finish(long existingLastId)
        {
            CompleteLeaf();
            if (!_previous.IsEmpty && !_last.IsEmpty)
            {
                var last = new PostingListLeaf(_last);
                if (last.UsedBytes < _last.Length / 2 && last.FirstId <= existingLastId)
                {
                    Rebalance();
                }
            }

            Emit(ref _previous);
            Emit(ref _last);
        }

        public void Dispose()
        {
            if (_rented != null)
            {
                ArrayPool<PostingListBlockEntry>.Shared.Return(_rented);
                _rented = null;
            }
        }

        private void CompleteLeaf()
        {
            if (!_open)
            {
                return;
            }

            _open = false;
            if (_writer.Count == 0)
            {
                throw new InvalidOperationException("A posting-list leaf was completed empty: the sink's buffer is too small for one block.");
            }

            _writer.Finish();
            Leaves++;
            Count += _writer.Count;
            Emit(ref _previous);
            _previous = _last;
            _last = _buffer;
        }

        private void Emit(ref Span<byte> held)
        {
            if (!held.IsEmpty)
            {
                var leaf = new PostingListLeaf(held);
                _sink.LeafCompleted(new PostingListLeaf(held[..leaf.UsedBytes]));
                held = default;
            }
        }

        /// <summary>
        /// Moves whole blocks from the end of the next-to-last leaf to the front of the last one,
        /// as encoded (no decoding), so that each takes about half their bytes. The pair is built
        /// in scratch and replaces the old one only if everything fits.
        /// </summary>
        private readonly void Rebalance()
        {
            var first = new PostingListLeaf(_previous);
            var second = new PostingListLeaf(_last);
            var target = (first.UsedBytes + second.UsedBytes) / 2;
            var directory = first.Directory;
            var keep = 0;
            var size = PostingListLeaf.HeaderSize + PostingListLeaf.PadSize;
            while (keep < directory.Length)
            {
                var blockBytes = PostingListLeaf.BlockEntrySize + PackedDeltas.ByteCount(directory[keep].IdCount - 1, directory[keep].BitWidth);
                if (keep > 0 && size + blockBytes > target)
                {
                    break;
                }

                size += blockBytes;
                keep++;
            }

            if (keep == directory.Length)
            {
                return;
            }

            var scratch = ArrayPool<byte>.Shared.Rent(_previous.Length + _last.Length);
            try
            {
                var newFirst = scratch.AsSpan(0, _previous.Length);
                var newSecond = scratch.AsSpan(_previous.Length, _last.Length);
                var writer = new PostingListLeafWriter(newFirst, _directory);
                var fits = writer.AppendEncoded(directory[..keep], first.Data) == keep;
                writer.Finish();
                writer = new PostingListLeafWriter(newSecond, _directory);
                fits &= writer.AppendEncoded(directory[keep..], first.Data) == directory.Length - keep;
                fits &= writer.AppendEncoded(second.Directory, second.Data) == second.BlockCount;
                writer.Finish();
                if (fits)
                {
                    newFirst[..new PostingListLeaf(newFirst).UsedBytes].CopyTo(_previous);
                    newSecond[..new PostingListLeaf(newSecond).UsedBytes].CopyTo(_last);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(scratch);
            }
        }

        private void Open()
        {
            if (_open)
            {
                return;
            }

            _buffer = _sink.NextLeafBuffer();
            var needed = PostingListLeaf.MaxBlockCount(Math.Min(_buffer.Length, PostingListLeaf.MaxCapacity));
            if (_directory.Length < needed)
            {
                Dispose();
                _rented = ArrayPool<PostingListBlockEntry>.Shared.Rent(needed);
                _directory = _rented;
            }

            _writer = new PostingListLeafWriter(_buffer, _directory);
            _open = true;
        }
    }
}
