using Ingest.Storage.PostingLists;
using Xunit.Abstractions;

namespace Ingest.Storage.Tests.PostingLists;

public sealed class PostingListLeafTests(ITestOutputHelper output)
{
    [Fact]
    public void Empty_leaf_round_trips()
    {
        var leaves = LeafIds.EncodeAll([], LeafIds.PageBody);

        var leaf = new PostingListLeaf(Assert.Single(leaves));
        Assert.True(leaf.IsEmpty);
        Assert.Equal(0, leaf.BlockCount);
        Assert.Equal(PostingListLeaf.HeaderSize + PostingListLeaf.PadSize, leaf.UsedBytes);
        Assert.False(leaf.Contains(0));
        Assert.False(leaf.TrySeek(0, out _));
        Span<long> buffer = stackalloc long[PostingListLeaf.MaxIdsPerBlock];
        Assert.Equal(0, leaf.GetIds().Fill(buffer));
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(42L)]
    [InlineData(long.MaxValue)]
    public void Single_id_round_trips(long id)
    {
        var leaves = LeafIds.EncodeAll([id], LeafIds.PageBody);

        var bytes = Assert.Single(leaves);
        var leaf = new PostingListLeaf(bytes);
        Assert.Equal(1, leaf.Count);
        Assert.Equal(id, leaf.FirstId);
        Assert.Equal(id, leaf.LastId);
        Assert.Equal([id], LeafIds.Decode(bytes));
        Assert.True(leaf.Contains(id));
        Assert.False(leaf.Contains(id - 1));
    }

    public static TheoryData<string> Shapes => ["dense", "dense-from-huge", "small-gaps", "sparse", "huge-gaps", "max-gaps", "stride-7", "mixed", "tail-at-max"];

    [Theory]
    [MemberData(nameof(Shapes))]
    public void Shapes_round_trip_across_leaves(string shape) => TestSeed.Run(seed =>
    {
        var ids = Generate(shape, new Random(seed), 20_000);

        foreach (var capacity in new[] { PostingListLeaf.MinCapacity, 300, 4096, LeafIds.PageBody, PostingListLeaf.MaxCapacity })
        {
            var leaves = LeafIds.EncodeAll(ids, capacity);
            var decoded = leaves.SelectMany(b => LeafIds.Decode(b)).ToArray();
            Assert.Equal(ids, decoded);
            foreach (var bytes in leaves)
            {
                var leaf = new PostingListLeaf(bytes);
                var own = LeafIds.Decode(bytes);
                Assert.Equal(own[0], leaf.FirstId);
                Assert.Equal(own[^1], leaf.LastId);
                Assert.Equal(own.Length, leaf.Count);
            }
        }
    });

    [Theory]
    [MemberData(nameof(Shapes))]
    public void Contains_and_seek_match_a_binary_search(string shape) => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var ids = Generate(shape, rnd, 3_000);
        var bytes = LeafIds.EncodeAll(ids, PostingListLeaf.MaxCapacity)[0];
        var leaf = new PostingListLeaf(bytes);
        Assert.Equal(ids.Length, leaf.Count);

        for (var q = 0; q < 5_000; q++)
        {
            var probe = q % 3 switch
            {
                0 => ids[rnd.Next(ids.Length)],
                1 => Math.Max(0, ids[rnd.Next(ids.Length)] + rnd.Next(-3, 4)),
                _ => rnd.NextInt64(0, long.MaxValue),
            };
            var index = PostingListLeaf.LowerBound(ids, probe);

            Assert.Equal(index < ids.Length && ids[index] == probe, leaf.Contains(probe));
            Assert.Equal(index < ids.Length, leaf.TrySeek(probe, out var found));
            if (index < ids.Length)
            {
                Assert.Equal(ids[index], found);
            }
        }
    });

    [Theory]
    [MemberData(nameof(Shapes))]
    public void Enumerator_fills_in_order_and_seeks_forward(string shape) => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var ids = Generate(shape, rnd, 3_000);
        var bytes = LeafIds.EncodeAll(ids, PostingListLeaf.MaxCapacity)[0];
        var leaf = new PostingListLeaf(bytes);
        var buffer = new long[PostingListLeaf.MaxIdsPerBlock + rnd.Next(0, 400)];

        var all = new List<long>();
        var e = leaf.GetIds();
        int n;
        while ((n = e.Fill(buffer)) > 0)
        {
            all.AddRange(buffer.AsSpan(0, n).ToArray());
        }

        Assert.Equal(ids, all);

        // Seek to increasing targets, read one buffer each time, compare with the model.
        e = leaf.GetIds();
        var target = 0L;
        while (true)
        {
            target = rnd.Next(3) == 0 ? target + rnd.Next(0, 50) : Math.Max(target, ids[rnd.Next(ids.Length)]);
            e.Seek(target);
            n = e.Fill(buffer);
            var start = PostingListLeaf.LowerBound(ids, target);
            Assert.InRange(n, Math.Min(1, ids.Length - start), ids.Length - start);
            Assert.Equal(ids.AsSpan(start, n).ToArray(), buffer.AsSpan(0, n).ToArray());
            if (n == 0 || buffer[n - 1] == ids[^1])
            {
                Assert.Equal(0, e.Fill(buffer));
                break;
            }

            target = buffer[n - 1] + 1;
        }
    });

    [Fact]
    public void Encode_reports_how_many_fit_and_fills_the_buffer()
    {
        var ids = LeafIds.Gaps(new Random(7), 100_000, 1_000);
        var buffer = new byte[LeafIds.PageBody];

        var taken = PostingListLeaf.Encode(ids, buffer);

        var leaf = new PostingListLeaf(buffer);
        Assert.Equal(taken, leaf.Count);
        Assert.InRange(taken, 1, ids.Length - 1);
        Assert.Equal(ids[taken - 1], leaf.LastId);

        // The leaf is full: the last block was cut to the bytes left, so little space is wasted.
        Assert.InRange(leaf.UsedBytes, LeafIds.PageBody - 24, LeafIds.PageBody);
        output.WriteLine($"{taken} ids with gaps up to 1000 in {leaf.UsedBytes} bytes ({leaf.BlockCount} blocks)");
    }

    [Fact]
    public void Encode_rejects_unsorted_duplicate_and_negative_ids()
    {
        var buffer = new byte[LeafIds.PageBody];

        Assert.Throws<ArgumentException>(() => PostingListLeaf.Encode([1, 3, 2], buffer));
        Assert.Throws<ArgumentException>(() => PostingListLeaf.Encode([1, 2, 2], buffer));
        Assert.Throws<ArgumentException>(() => PostingListLeaf.Encode([-1, 2], buffer));
        Assert.Throws<ArgumentException>(() => PostingListLeaf.Encode([5, long.MinValue], buffer));
        var longRun = LeafIds.Dense(0, 1_000);
        longRun[700] = 10;
        Assert.Throws<ArgumentException>(() => PostingListLeaf.Encode(longRun, buffer));
    }

    [Fact]
    public void Corrupt_headers_and_blocks_are_reported()
    {
        var bytes = LeafIds.EncodeAll(LeafIds.Gaps(new Random(1), 1_000, 100), LeafIds.PageBody)[0];

        Assert.Throws<InvalidDataException>(() => new PostingListLeaf(bytes.AsSpan(0, bytes.Length - 1)));
        var badVersion = (byte[])bytes.Clone();
        badVersion[26] = 99;
        Assert.Throws<InvalidDataException>(() => new PostingListLeaf(badVersion));
        var badOffset = (byte[])bytes.Clone();
        badOffset[PostingListLeaf.HeaderSize + PostingListLeaf.BlockEntrySize + 13] = 0xFF;
        Assert.Throws<InvalidDataException>(() => new PostingListLeaf(badOffset).DecodeBlock(1, new long[PostingListLeaf.MaxIdsPerBlock]));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public void Ten_million_dense_ids_take_at_most_two_bytes_each(int maxGap)
    {
        const int count = 10_000_000;
        var ids = maxGap == 1 ? LeafIds.Dense(0, count) : LeafIds.Gaps(new Random(42), count, maxGap);
        var buffer = new byte[LeafIds.PageBody];
        var decoded = new long[PostingListLeaf.MaxCapacity * 8];

        long pages = 0;
        long used = 0;
        var rest = ids.AsSpan();
        while (!rest.IsEmpty)
        {
            var taken = PostingListLeaf.Encode(rest, buffer);
            var leaf = new PostingListLeaf(buffer);
            Assert.Equal(taken, leaf.Decode(decoded));
            Assert.True(rest[..taken].SequenceEqual(decoded.AsSpan(0, taken)));
            used += leaf.UsedBytes;
            pages++;
            rest = rest[taken..];
        }

        // Whole pages count: that is what the tree will spend.
        var bytesPerId = (double)(pages * LeafIds.PageBody) / count;
        output.WriteLine($"gaps 1..{maxGap}: {pages} pages of {LeafIds.PageBody} bytes, {bytesPerId:F4} bytes/id ({(double)used / count:F4} counting used bytes only)");
        Assert.True(bytesPerId <= 2.0, $"{bytesPerId} bytes/id");
    }

    private static long[] Generate(string shape, Random rnd, int count) => shape switch
    {
        "dense" => LeafIds.Dense(rnd.Next(1_000), count),
        "dense-from-huge" => LeafIds.Dense(long.MaxValue - count, count),
        "small-gaps" => LeafIds.Gaps(rnd, count, 4),
        "sparse" => LeafIds.Gaps(rnd, count, 1_000_000),
        "huge-gaps" => LeafIds.Gaps(rnd, count, long.MaxValue / count),
        "max-gaps" => [0, long.MaxValue / 2, long.MaxValue - 1, long.MaxValue],
        "stride-7" => Enumerable.Range(0, count).Select(i => 3 + (7L * i)).ToArray(),
        "mixed" => Mixed(rnd, count),
        "tail-at-max" => [0, 1, 2, .. LeafIds.Gaps(rnd, 300, 1 << 20, long.MaxValue - (301L << 20)), long.MaxValue],
        _ => throw new ArgumentOutOfRangeException(nameof(shape)),
    };

    /// <summary>Runs of dense ids, small gaps and jumps of every magnitude, so blocks of all widths sit side by side.</summary>
    private static long[] Mixed(Random rnd, int count)
    {
        var ids = new long[count];
        var id = rnd.NextInt64(0, 1_000);
        for (var i = 0; i < count; i++)
        {
            ids[i] = id;
            var magnitude = rnd.Next(100) switch
            {
                < 60 => 1L,
                < 90 => 1L << rnd.Next(1, 12),
                < 99 => 1L << rnd.Next(12, 40),
                _ => 1L << rnd.Next(40, 52),
            };
            id += rnd.NextInt64(1, magnitude + 1);
        }

        return ids;
    }
}
