namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>Posting-list workloads: Ingest only, since neither baseline has the structure.</summary>
internal abstract class PostingListWorkload : StorageWorkload
{
    public sealed override WorkloadOutcome Run(IStorageSystem system, WorkloadContext context) => system switch
    {
        IPostingListStore store => Run(store, context),
        _ => new WorkloadNotApplicable($"Ingest-only: {system.Name} has no posting lists"),
    };

    protected abstract WorkloadOutcome Run(IPostingListStore store, WorkloadContext context);

    protected static void Verify(IPostingListStore store, string list, PostingListScan expected)
    {
        var actual = store.Scan(list);
        if (actual != expected)
        {
            throw new InvalidOperationException($"Posting list {list} holds {actual}, expected {expected}.");
        }
    }
}
