namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// Removes a random half of the ids of a freshly built dense list, as one sorted batch or with one
/// call per id in random order; mirrors <see cref="DeleteHalfWorkload"/>.
/// </summary>
internal sealed class PostingListRemoveWorkload(bool sortedBatch) : PostingListWorkload
{
    public override string Name => sortedBatch ? "postinglist-remove-sorted-batch" : "postinglist-remove-one-by-one";

    public override string Unit => "ids/s";

    protected override WorkloadOutcome Run(IPostingListStore store, WorkloadContext context)
    {
        var data = context.Data.PostingLists;
        var list = sortedBatch ? "postings-remove-sorted" : "postings-remove-each";
        store.AddSorted(list, data.Ids);

        var removals = sortedBatch ? data.RemoveInSortedOrder : data.RemoveInRandomOrder;
        var result = Measure.Operations(removals.Length, () =>
        {
            if (sortedBatch)
            {
                store.RemoveSorted(list, removals);
            }
            else
            {
                store.RemoveOneByOne(list, removals);
            }
        });

        Verify(store, list, data.ExpectedScan(afterRemovals: true));
        return result;
    }
}
