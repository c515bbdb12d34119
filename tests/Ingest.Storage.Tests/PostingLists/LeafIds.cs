using Ingest.Storage.PostingLists;

namespace Ingest.Storage.Tests.PostingLists;

/// <summary>Test-side helpers: generate id runs, encode into fresh buffers, decode leaves back to arrays.</summary>
internal static class LeafIds
{
    /// <summary>The page body the tree will give a leaf: an 8 KiB page minus its 16-byte header.</summary>
    public const int PageBody = 8192 - 16;

    public static long[] Dense(long first, int count)
    {
        var ids = new long[count];
        for (var i = 0; i < count; i++)
        {
            ids[i] = first + i;
        }

        return ids;
    }

    /// <summary>Ids with random gaps in [1, maxGap].</summary>
    public static long[] Gaps(Random rnd, int count, long maxGap, long first = 0)
    {
        var ids = new long[count];
        var id = first;
        for (var i = 0; i < count; i++)
        {
            ids[i] = id;
            if (i < count - 1)
            {
                id += rnd.NextInt64(1, maxGap + 1);
            }
        }

        return ids;
    }

    public static long[] Decode(ReadOnlySpan<byte> leafBytes)
    {
        var leaf = new PostingListLeaf(leafBytes);
        var ids = new long[leaf.Count];
        Assert.Equal(leaf.Count, leaf.Decode(ids));
        return ids;
    }

    /// <summary>Encodes all of <paramref name="ids"/> into as many leaves as needed, each trimmed to its used bytes (so any over-read would fail).</summary>
    public static List<byte[]> EncodeAll(ReadOnlySpan<long> ids, int capacity)
    {
        var leaves = new List<byte[]>();
        var buffer = new byte[capacity];
        do
        {
            Array.Fill(buffer, (byte)0xCD);
            var taken = PostingListLeaf.Encode(ids, buffer);
            Assert.True(taken > 0 || ids.IsEmpty);
            var used = new PostingListLeaf(buffer).UsedBytes;
            Assert.True(used <= capacity);
            leaves.Add(buffer.AsSpan(0, used).ToArray());
            ids = ids[taken..];
        }
        while (!ids.IsEmpty);
        return leaves;
    }
}
