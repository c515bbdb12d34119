namespace Ingest.Benchmarks.Storage;

/// <summary>Dense ids 0..N-1 and a random half of them to remove, ascending and shuffled.</summary>
internal sealed record PostingListData(long[] Ids, long[] RemoveInSortedOrder, long[] RemoveInRandomOrder)
{
    public static PostingListData Generate(int count, int seed)
    {
        var ids = new long[count];
        for (var i = 0; i < ids.Length; i++)
        {
            ids[i] = i;
        }

        var random = new Random(seed);
        var removals = new List<long>(count / 2 + 1);
        foreach (var id in ids)
        {
            if (random.Next(2) == 0)
            {
                removals.Add(id);
            }
        }

        var sorted = removals.ToArray();
        var shuffled = (long[])sorted.Clone();
        random.Shuffle(shuffled);
        return new PostingListData(ids, sorted, shuffled);
    }

    public PostingListScan ExpectedScan(bool afterRemovals)
    {
        long count = Ids.Length;
        var sum = (long)Ids.Length * (Ids.Length - 1) / 2;
        if (afterRemovals)
        {
            count -= RemoveInSortedOrder.Length;
            foreach (var id in RemoveInSortedOrder)
            {
                sum -= id;
            }
        }

        return new PostingListScan(count, sum);
    }
}
