namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>One ordered enumeration of the whole dense list (after one unmeasured pass that also checks it).</summary>
internal sealed class PostingListDecodeWorkload : PostingListWorkload
{
    public override string Name => "postinglist-decode";

    public override string Unit => "ids/s";

    public override string Target => ">= 200M ids/s";

    protected override WorkloadOutcome Run(IPostingListStore store, WorkloadContext context)
    {
        context.EnsurePostingList(store);
        var expected = context.Data.PostingLists.ExpectedScan(afterRemovals: false);
        Verify(store, WorkloadContext.PostingListName, expected);

        var scan = default(PostingListScan);
        var result = Measure.Operations(expected.Count, () => scan = store.Scan(WorkloadContext.PostingListName));
        return scan == expected
            ? result
            : throw new InvalidOperationException($"The measured scan saw {scan}, expected {expected}.");
    }
}
