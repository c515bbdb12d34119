namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>All dense ids, ascending, into an empty posting list in one call.</summary>
internal sealed class PostingListAddWorkload : PostingListWorkload
{
    public override string Name => "postinglist-add";

    public override string Unit => "ids/s";

    protected override WorkloadOutcome Run(IPostingListStore store, WorkloadContext context)
    {
        var data = context.Data.PostingLists;
        var result = Measure.Operations(data.Ids.Length, () => store.AddSorted(WorkloadContext.PostingListName, data.Ids));
        context.MarkPostingListLoaded();
        Verify(store, WorkloadContext.PostingListName, data.ExpectedScan(afterRemovals: false));
        return result;
    }
}
