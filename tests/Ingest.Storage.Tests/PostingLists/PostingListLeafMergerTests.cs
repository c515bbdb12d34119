using Ingest.Storage.PostingLists;
using Xunit.Abstractions;

namespace Ingest.Storage.Tests.PostingLists;

public sealed class PostingListLeafMergerTests(ITestOutputHelper output)
{
    [Fact]
    public void Merge_into_nothing_writes_the_additions()
    {
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge([], [1, 2, 3, 10], [2, 5], ref sink);

        Assert.Equal(new PostingListMergeResult(1, 4, 4, 0), result);
        Assert.Equal([1, 2, 3, 10], LeafIds.Decode(Assert.Single(sink.Leaves)));
    }

    [Fact]
    public void Adding_present_and_removing_absent_ids_change_nothing()
    {
        var leaf = LeafIds.EncodeAll([2, 4, 6, 8], LeafIds.PageBody)[0];
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge(leaf, [4, 8], [1, 3, 9], ref sink);

        Assert.Equal(new PostingListMergeResult(1, 4, 0, 0), result);
        Assert.Equal([2, 4, 6, 8], LeafIds.Decode(Assert.Single(sink.Leaves)));
    }

    [Fact]
    public void An_id_both_added_and_removed_ends_up_present()
    {
        var leaf = LeafIds.EncodeAll([2, 4, 6], LeafIds.PageBody)[0];
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge(leaf, [4, 5], [4, 5, 6], ref sink);

        Assert.Equal([2, 4, 5], LeafIds.Decode(Assert.Single(sink.Leaves)));
        Assert.Equal(new PostingListMergeResult(1, 3, 1, 1), result);
    }

    [Fact]
    public void Duplicates_within_an_input_are_harmless()
    {
        var leaf = LeafIds.EncodeAll([2, 4, 6], LeafIds.PageBody)[0];
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge(leaf, [3, 3, 3, 7, 7], [2, 2, 6, 6], ref sink);

        Assert.Equal([3, 4, 7], LeafIds.Decode(Assert.Single(sink.Leaves)));
        Assert.Equal(new PostingListMergeResult(1, 3, 2, 2), result);
    }

    [Fact]
    public void Removing_everything_writes_no_leaf()
    {
        var ids = LeafIds.Dense(100, 5_000);
        var leaf = LeafIds.EncodeAll(ids, LeafIds.PageBody)[0];
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge(leaf, [], ids, ref sink);

        Assert.Empty(sink.Leaves);
        Assert.Equal(new PostingListMergeResult(0, 0, 0, 5_000), result);
    }

    [Fact]
    public void A_leaf_that_overflows_splits_into_full_leaves()
    {
        var rnd = new Random(3);
        var existing = LeafIds.Gaps(rnd, 4_000, 200);
        var leaf = LeafIds.EncodeAll(existing, LeafIds.PageBody)[0];
        var count = new PostingListLeaf(leaf).Count;
        var additions = LeafIds.Gaps(rnd, 50_000, 3, existing[0]);
        var sink = new CollectingSink(LeafIds.PageBody);

        var result = PostingListLeafMerger.Merge(leaf, additions, [], ref sink);

        var expected = new SortedSet<long>(existing.Take(count).Concat(additions));
        Assert.Equal(expected, sink.Leaves.SelectMany(b => LeafIds.Decode(b)));
        Assert.True(sink.Leaves.Count > 2);
        Assert.Equal(sink.Leaves.Count, result.Leaves);
        foreach (var full in sink.Leaves.SkipLast(2))
        {
            Assert.InRange(full.Length, LeafIds.PageBody - 24, LeafIds.PageBody);
        }

        Assert.InRange(sink.Leaves[^1].Length, LeafIds.PageBody * 45 / 100, LeafIds.PageBody);
    }

    [Fact]
    public void Inserting_into_a_full_leaf_splits_it_evenly()
    {
        var ids = LeafIds.Gaps(new Random(8), 100_000, 10);
        var buffer = new byte[LeafIds.PageBody];
        var taken = PostingListLeaf.Encode(ids, buffer);
        var sink = new CollectingSink(LeafIds.PageBody);

        PostingListLeafMerger.Merge(buffer, [ids[taken / 3] + 1, ids[taken / 3] + 2], [], ref sink);

        Assert.Equal(2, sink.Leaves.Count);
        Assert.All(sink.Leaves, leaf => Assert.InRange(leaf.Length, LeafIds.PageBody * 40 / 100, LeafIds.PageBody * 60 / 100));
        var expected = new SortedSet<long>(ids.Take(taken)) { ids[taken / 3] + 1, ids[taken / 3] + 2 };
        Assert.Equal(expected, sink.Leaves.SelectMany(b => LeafIds.Decode(b)));
    }

    [Fact]
    public void Appending_past_a_full_leaf_keeps_it_full()
    {
        var ids = LeafIds.Gaps(new Random(9), 100_000, 10);
        var buffer = new byte[LeafIds.PageBody];
        var taken = PostingListLeaf.Encode(ids, buffer);
        var sink = new CollectingSink(LeafIds.PageBody);

        PostingListLeafMerger.Merge(buffer, ids.AsSpan(taken, 10), [], ref sink);

        Assert.Equal(2, sink.Leaves.Count);
        Assert.InRange(sink.Leaves[0].Length, LeafIds.PageBody - 24, LeafIds.PageBody);
        Assert.Equal(ids.Take(taken + 10), sink.Leaves.SelectMany(b => LeafIds.Decode(b)));
    }

    [Fact]
    public void A_small_batch_keeps_the_untouched_blocks_as_they_were()
    {
        var ids = LeafIds.Gaps(new Random(11), 30_000, 5);
        var leaf = LeafIds.EncodeAll(ids, PostingListLeaf.MaxCapacity)[0];
        var before = new PostingListLeaf(leaf);
        var sink = new CollectingSink(PostingListLeaf.MaxCapacity);

        PostingListLeafMerger.Merge(leaf, [ids[15_000] + 1], [ids[7_000]], ref sink);

        var after = new PostingListLeaf(Assert.Single(sink.Leaves));
        var expected = new SortedSet<long>(ids) { ids[15_000] + 1 };
        expected.Remove(ids[7_000]);
        Assert.Equal(expected, LeafIds.Decode(sink.Leaves[0]));
        Assert.InRange(after.BlockCount, before.BlockCount, before.BlockCount + 2);

        // Blocks before the first change are the same bytes.
        var firstTouched = (7_000 / PostingListLeaf.MaxIdsPerBlock) - 1;
        for (var b = 0; b < firstTouched; b++)
        {
            Assert.True(before.EncodedBlock(b, out var x).SequenceEqual(after.EncodedBlock(b, out var y)));
            Assert.Equal(x.FirstId, y.FirstId);
        }
    }

    [Fact]
    public void Small_appends_and_inserts_do_not_fragment_a_leaf()
    {
        var rnd = new Random(12);
        var model = new SortedSet<long>();
        var leaf = Array.Empty<byte>();
        var sink = new CollectingSink(PostingListLeaf.MaxCapacity);
        var next = 0L;
        for (var batch = 0; batch < 600; batch++)
        {
            long[] additions;
            if (batch % 3 == 2 && model.Count > 0)
            {
                // One id somewhere in the middle.
                var inside = rnd.NextInt64(0, next);
                additions = model.Contains(inside) ? [] : [inside];
            }
            else
            {
                additions = LeafIds.Gaps(rnd, rnd.Next(1, 40), 4, next + 1);
                next = additions[^1];
            }

            sink.Leaves.Clear();
            PostingListLeafMerger.Merge(leaf, additions, [], ref sink);
            leaf = Assert.Single(sink.Leaves);
            model.UnionWith(additions);
        }

        var result = new PostingListLeaf(leaf);
        Assert.Equal(model, LeafIds.Decode(leaf));

        // Every block holds at least half a block's ids, give or take the ones at the ends.
        var minimal = (result.Count + PostingListLeaf.MaxIdsPerBlock - 1) / PostingListLeaf.MaxIdsPerBlock;
        Assert.InRange(result.BlockCount, minimal, (2 * minimal) + 2);
        output.WriteLine($"{result.Count} ids in {result.BlockCount} blocks (minimum {minimal})");
    }

    [Theory]
    [InlineData("additions")]
    [InlineData("removals")]
    public void Unsorted_or_negative_input_is_rejected(string which)
    {
        var leaf = LeafIds.EncodeAll([2, 4, 6], LeafIds.PageBody)[0];
        long[][] bad = [[5, 3], [1, 2, 9, 8], [-1, 3]];

        foreach (var input in bad)
        {
            var sink = new CollectingSink(LeafIds.PageBody);
            var ex = Assert.Throws<ArgumentException>(() => which == "additions"
                ? PostingListLeafMerger.Merge(leaf, input, [], ref sink)
                : PostingListLeafMerger.Merge(leaf, [], input, ref sink));
            Assert.Equal(which, ex.ParamName);
            Assert.Empty(sink.Leaves);
        }
    }

    /// <summary>
    /// A miniature posting list: leaves kept in order, each batch routed leaf by leaf the way the
    /// tree will (leaf i takes ids from its first id up to the next leaf's first id), checked
    /// against a SortedSet after every batch.
    /// </summary>
    [Theory]
    [InlineData(PostingListLeaf.MinCapacity, 300)]
    [InlineData(512, 1_000)]
    [InlineData(LeafIds.PageBody, 1_500)]
    public void Random_batches_match_a_sorted_set(int capacity, int batches) => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var model = new SortedSet<long>();
        var leaves = new List<byte[]>();
        var sink = new CollectingSink(capacity);
        var range = rnd.Next(3) switch { 0 => 2_000L, 1 => 200_000L, _ => long.MaxValue };

        for (var batch = 0; batch < batches * TestSeed.Scale; batch++)
        {
            var additions = RandomIds(rnd, range, rnd.Next(0, 600), model, fromModel: false);
            var removals = model.Count > 20_000 || rnd.Next(50) == 0
                ? RangeOf(rnd, model)
                : RandomIds(rnd, range, rnd.Next(0, 400), model, fromModel: rnd.Next(2) == 0);

            var next = new List<byte[]>();
            long added = 0, removed = 0;
            var a = 0;
            var r = 0;
            for (var i = 0; i < Math.Max(1, leaves.Count); i++)
            {
                var upper = i + 1 < leaves.Count ? new PostingListLeaf(leaves[i + 1]).FirstId : long.MaxValue;
                var aEnd = UpperEnd(additions, a, upper, last: i + 1 >= leaves.Count);
                var rEnd = UpperEnd(removals, r, upper, last: i + 1 >= leaves.Count);
                var leaf = i < leaves.Count ? leaves[i] : [];
                if (aEnd == a && rEnd == r && leaf.Length > 0)
                {
                    next.Add(leaf);
                    continue;
                }

                sink.Leaves.Clear();
                var result = PostingListLeafMerger.Merge(leaf, additions.AsSpan(a, aEnd - a), removals.AsSpan(r, rEnd - r), ref sink);
                Assert.Equal(sink.Leaves.Count, result.Leaves);
                Assert.Equal(sink.Leaves.Sum(l => (long)new PostingListLeaf(l).Count), result.Count);
                next.AddRange(sink.Leaves);
                added += result.Added;
                removed += result.Removed;
                a = aEnd;
                r = rEnd;
            }

            var before = model.Count;
            var expectedRemoved = removals.Distinct().Count(id => model.Contains(id) && Array.BinarySearch(additions, id) < 0);
            model.ExceptWith(removals);
            model.UnionWith(additions);
            Assert.Equal(expectedRemoved, removed);
            Assert.Equal(model.Count - before + expectedRemoved, added);

            leaves = next;
            Verify(leaves, model, rnd);
        }

        output.WriteLine($"seed {seed}: {model.Count} ids in {leaves.Count} leaves of {capacity} bytes");
    });

    [Fact]
    public void Random_inserts_keep_leaves_well_filled()
    {
        var rnd = new Random(13);
        var leaves = new List<byte[]>();
        var sink = new CollectingSink(LeafIds.PageBody);
        for (var batch = 0; batch < 300; batch++)
        {
            var additions = Enumerable.Range(0, 1_000).Select(_ => rnd.NextInt64(0, 50_000_000)).Order().ToArray();
            var next = new List<byte[]>();
            var a = 0;
            for (var i = 0; i < Math.Max(1, leaves.Count); i++)
            {
                var last = i + 1 >= leaves.Count;
                var upper = last ? long.MaxValue : new PostingListLeaf(leaves[i + 1]).FirstId;
                var end = last ? additions.Length : UpperEnd(additions, a, upper, last: false);
                if (end == a && leaves.Count > 0)
                {
                    next.Add(leaves[i]);
                    continue;
                }

                sink.Leaves.Clear();
                PostingListLeafMerger.Merge(i < leaves.Count ? leaves[i] : [], additions.AsSpan(a, end - a), [], ref sink);
                next.AddRange(sink.Leaves);
                a = end;
            }

            leaves = next;
        }

        var fill = leaves.Average(l => (double)l.Length / LeafIds.PageBody);
        output.WriteLine($"{leaves.Count} leaves, {fill:P1} full on average");
        Assert.True(fill > 0.6, $"Leaves are {fill:P1} full on average.");
    }

    [Fact]
    public void Merge_allocates_nothing()
    {
        var leaf = LeafIds.EncodeAll(LeafIds.Gaps(new Random(5), 5_000, 50), LeafIds.PageBody)[0];
        var additions = LeafIds.Gaps(new Random(6), 20_000, 20);
        var removals = LeafIds.Gaps(new Random(7), 3_000, 80);
        var sink = new ReusingSink(LeafIds.PageBody);
        PostingListLeafMerger.Merge(leaf, additions, removals, ref sink);

        var result = default(PostingListMergeResult);
        var allocated = ThreadAllocations.Measure(() => result = PostingListLeafMerger.Merge(leaf, additions, removals, ref sink));

        Assert.True(result.Leaves > 1);
        Assert.Equal(0, allocated);
    }

    private static void Verify(List<byte[]> leaves, SortedSet<long> model, Random rnd)
    {
        var all = new List<long>(model.Count);
        var previousLast = -1L;
        foreach (var bytes in leaves)
        {
            var leaf = new PostingListLeaf(bytes);
            Assert.False(leaf.IsEmpty);
            Assert.True(leaf.FirstId > previousLast);
            previousLast = leaf.LastId;
            var ids = LeafIds.Decode(bytes);
            Assert.Equal(ids[0], leaf.FirstId);
            Assert.Equal(ids[^1], leaf.LastId);
            all.AddRange(ids);
            var probe = ids[rnd.Next(ids.Length)];
            Assert.True(leaf.Contains(probe));
            Assert.Equal(model.Contains(probe + 1), leaf.Contains(probe + 1) || (probe + 1 > leaf.LastId && model.Contains(probe + 1)));
        }

        Assert.Equal(model, all);
    }

    /// <summary>End of the ids below <paramref name="upper"/> (all of them for the last leaf).</summary>
    private static int UpperEnd(long[] ids, int start, long upper, bool last)
    {
        if (last)
        {
            return ids.Length;
        }

        var end = start;
        while (end < ids.Length && ids[end] < upper)
        {
            end++;
        }

        return end;
    }

    /// <summary>Sorted ids, either fresh (uniform, clustered, or a dense run) or drawn from the model; occasional duplicates.</summary>
    private static long[] RandomIds(Random rnd, long range, int count, SortedSet<long> model, bool fromModel)
    {
        var ids = new long[count];
        var shape = rnd.Next(3);
        var center = rnd.NextInt64(0, range);
        for (var i = 0; i < count; i++)
        {
            if (shape == 2 && !fromModel)
            {
                // A dense run, as a batch of new documents makes: 0-bit blocks.
                ids[i] = Math.Min(center, long.MaxValue - count) + i;
                continue;
            }

            if (fromModel && model.Count > 0)
            {
                // The first model id at or after a random point (a view's Min is a tree walk; its Count would be a scan).
                var from = rnd.NextInt64(0, range);
                ids[i] = from > model.Max ? model.Max : model.GetViewBetween(from, long.MaxValue).Min;
            }
            else if (shape == 1)
            {
                ids[i] = Math.Clamp(center + rnd.NextInt64(-5_000, 5_000), 0, long.MaxValue);
            }
            else
            {
                ids[i] = rnd.NextInt64(0, range);
            }

            if (i > 0 && rnd.Next(20) == 0)
            {
                ids[i] = ids[i - 1];
            }
        }

        Array.Sort(ids);
        return ids;
    }

    /// <summary>A contiguous run of model ids, up to a few leaves' worth: empties whole leaves.</summary>
    private static long[] RangeOf(Random rnd, SortedSet<long> model)
    {
        if (model.Count == 0)
        {
            return [];
        }

        var from = rnd.NextInt64(model.Min, model.Max + 1);
        var view = from > model.Max ? model.GetViewBetween(model.Max, model.Max) : model.GetViewBetween(from, long.MaxValue);
        return view.Take(rnd.Next(1, 15_000)).ToArray();
    }

    /// <summary>Three preallocated buffers in rotation, nothing kept: measures the merge's own allocations.</summary>
    private sealed class ReusingSink(int capacity) : IPostingListLeafSink
    {
        private readonly byte[][] _buffers = [new byte[capacity], new byte[capacity], new byte[capacity]];
        private int _next;

        public Span<byte> NextLeafBuffer() => _buffers[_next++ % _buffers.Length];

        public void LeafCompleted(PostingListLeaf leaf)
        {
        }
    }
}
