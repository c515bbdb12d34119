namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>Size of the dense list in the store divided by its ids; a figure, not a rate.</summary>
internal sealed class PostingListBytesPerIdWorkload : PostingListWorkload
{
    public override string Name => "postinglist-bytes-per-id";

    public override string Unit => "B/id";

    public override string Target => "<= 2 B/id";

    protected override WorkloadOutcome Run(IPostingListStore store, WorkloadContext context)
    {
        context.EnsurePostingList(store);
        var ids = context.Data.PostingLists.Ids.Length;
        return new WorkloadMeasurement(TimeSpan.Zero, Value: store.SizeInBytes(WorkloadContext.PostingListName) / (double)ids);
    }
}
