namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>All of <see cref="StorageDataset.Loaded"/>, in generation (random) order, in one durable transaction.</summary>
internal sealed class BulkLoadWorkload : KeyValueWorkload
{
    public override string Name => "bulk-load";

    public override string Unit => "items/s";

    public override string Target => ">= 1.0x lmdb";

    protected override WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context)
    {
        var tree = store.OpenTree(WorkloadContext.LoadedTreeName);
        var items = context.Data.Loaded;
        var usage = default(ThreadUsage);
        var result = Measure.Operations(items.Count, () =>
        {
            var before = ThreadUsage.Now();
            WorkloadContext.LoadInOneTransaction(store, tree, items);
            usage = ThreadUsage.Now() - before;
        });
        context.Log.WriteLine($"[{store.Name}] {Name}: the loading thread used {usage}");
        context.MarkLoaded(tree);
        return result;
    }
}
