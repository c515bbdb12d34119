using System.Text;
using Ingest.Indexing.Storage;

namespace Ingest.Indexing.Tests.Storage;

public sealed class PostingOpGroupsTests
{
    [Fact]
    public void Groups_come_in_field_then_term_byte_order_with_ascending_additions_and_removals()
    {
        var arena = new ByteArena();
        var ops = new List<PostingOp>();
        void Op(int field, string term, long entry, bool add) =>
            ops.Add(new PostingOp(field, arena.Append(Encoding.UTF8.GetBytes(term)), Encoding.UTF8.GetByteCount(term), entry, add));

        // Terms out of order, the same term at different arena offsets, entries out of order, a term on two fields.
        Op(1, "b", 9, add: true);
        Op(0, "zz", 4, add: false);
        Op(1, "b", 3, add: true);
        Op(1, "ab", 7, add: false);
        Op(0, "zz", 2, add: false);
        Op(1, "b", 5, add: false);
        Op(0, "b", 1, add: true);
        Op(1, "ab", 6, add: true);
        var groups = new PostingOpGroups();

        groups.Group(ops.ToArray(), arena.Bytes);

        var seen = Enumerable.Range(0, groups.Count)
            .Select(rank => (
                groups.Term(rank).Field,
                Encoding.UTF8.GetString(arena.Bytes, groups.Term(rank).Start, groups.Term(rank).Length),
                string.Join(",", groups.Additions(rank).ToArray()),
                string.Join(",", groups.Removals(rank).ToArray())))
            .ToList();
        Assert.Equal(
            [(0, "b", "1", ""), (0, "zz", "", "2,4"), (1, "ab", "6", "7"), (1, "b", "3,9", "5")],
            seen);
    }

    [Fact]
    public void A_second_smaller_batch_reuses_the_buffers_without_stale_entries()
    {
        var arena = new ByteArena();
        var x = arena.Append("x"u8);
        var y = arena.Append("y"u8);
        var groups = new PostingOpGroups();
        groups.Group(Enumerable.Range(0, 100).Select(i => new PostingOp(0, i % 2 == 0 ? x : y, 1, 100 - i, IsAddition: i % 10 != 0)).ToArray(), arena.Bytes);
        Assert.Equal(2, groups.Count);
        Assert.Equal(40, groups.Additions(0).Length);
        Assert.Equal(10, groups.Removals(0).Length);
        var kept = groups.CapacityBytes;

        groups.Group([new PostingOp(0, y, 1, 8, IsAddition: false)], arena.Bytes);

        Assert.Equal(1, groups.Count);
        Assert.Equal(0, groups.Additions(0).Length);
        Assert.Equal([8L], groups.Removals(0).ToArray());
        Assert.Equal(kept, groups.CapacityBytes);
    }
}
