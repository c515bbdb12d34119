using Ingest.Storage.PostingLists;
using Xunit.Abstractions;

namespace Ingest.Storage.Tests.PostingLists;

/// <summary>
/// The engine's counters show what a sorted batch buys: removing N ids with one <see cref="PostingList.Update"/>
/// decodes and rewrites each leaf that owns some of them once, with a few descents of the leaf index per leaf;
/// removing the same N ids one at a time merges a leaf and descends from the root for every id.
/// </summary>
public sealed class PostingListSortedRemovalVisitTests(ITestOutputHelper output)
{
    private const int Ids = 200_000;
    private const int RemovalStep = 40; // every 40th id: 5,000 removals spread over every leaf

    [Fact]
    public void Sorted_update_visits_each_leaf_once_for_many_removals()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var removals = Fill(env);
        using var tx = env.BeginWrite();
        var list = tx.OpenPostingList("p")!;
        var leaves = list.LeafCount;
        var owners = OwningLeaves(list, removals);
        var before = tx.Counters;

        var result = list.Update([], removals);

        var used = tx.Counters.Since(before);
        output.WriteLine($"{removals.Length} removals over {leaves} leaves ({owners} owning them): {used}");
        Assert.Equal(removals.Length, result.Removed);
        Assert.Equal(1, used.PostingListUpdates);
        Assert.Equal(owners, used.PostingListLeavesMerged);
        Assert.True(owners > 10, $"the removals should spread over many leaves, not {owners}");

        // Per old leaf a seek to it and its removal from the leaf index, per new leaf its insertion (a full leaf
        // may split: its gaps grew, so their packing did), and one seek past the last leaf. The leaf index is one
        // page here: a descent reads one page, and each step of a cursor on it reads that page again.
        var written = list.LeafCount;
        output.WriteLine($"{written} leaves after");
        Assert.InRange(used.Descents, owners, (2 * owners) + written + 1);
        Assert.InRange(used.PageAccesses, owners, 16 * (owners + written));
        Assert.True(used.PageAccesses < removals.Length / 4, $"{used.PageAccesses} page accesses for {removals.Length} removals");
        Assert.Equal(Ids - removals.Length, list.Count);
    }

    [Fact]
    public void Removing_the_same_ids_one_by_one_descends_and_merges_once_per_id()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var removals = Fill(env);
        using var tx = env.BeginWrite();
        var list = tx.OpenPostingList("p")!;
        var before = tx.Counters;

        foreach (var id in removals)
        {
            Assert.True(list.Remove(id));
        }

        var used = tx.Counters.Since(before);
        output.WriteLine($"{removals.Length} removals one by one over {list.LeafCount} leaves: {used}");
        Assert.Equal(removals.Length, used.PostingListUpdates);
        Assert.Equal(removals.Length, used.PostingListLeavesMerged);
        Assert.True(used.Descents >= removals.Length, $"{used.Descents} descents for {removals.Length} removals");
        Assert.True(used.PageAccesses >= 2L * removals.Length, $"{used.PageAccesses} page accesses for {removals.Length} removals");
        Assert.Equal(Ids - removals.Length, list.Count);
    }

    /// <summary>Commits a list of <see cref="Ids"/> spaced ids and returns every <see cref="RemovalStep"/>th of them.</summary>
    private static long[] Fill(StorageEnvironment env)
    {
        // Random gaps: realistic packing (a uniform spacing packs into very few leaves).
        var rnd = new Random(20_261_123);
        var ids = new long[Ids];
        for (var i = 1; i < Ids; i++)
        {
            ids[i] = ids[i - 1] + rnd.Next(1, 100);
        }

        using (var tx = env.BeginWrite())
        {
            tx.CreatePostingList("p").Update(ids, []);
            tx.Commit();
        }

        return [.. ids.Where((_, i) => i % RemovalStep == 0)];
    }

    /// <summary>How many distinct leaves own <paramref name="ids"/>, found with the list's own routing.</summary>
    private static int OwningLeaves(PostingList list, long[] ids)
    {
        var cursor = list.CreateLeafCursor();
        var owners = new HashSet<long>();
        foreach (var id in ids)
        {
            Assert.True(PostingList.FindOwner(cursor, id));
            owners.Add(cursor.Key);
        }

        return owners.Count;
    }
}
