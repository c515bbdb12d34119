namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>New random items into an empty tree, DurableBatchSize per durable transaction.</summary>
internal sealed class BatchedDurableWorkload : KeyValueWorkload
{
    public override string Name => "batched-durable";

    public override string Unit => "items/s";

    public override string Target => ">= 1.0x lmdb";

    protected override WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context)
    {
        var tree = store.OpenTree("batched");
        var items = context.Data.Batched;
        var batchSize = context.Sizes.DurableBatchSize;
        return Measure.Operations(items.Count, () =>
        {
            for (var start = 0; start < items.Count; start += batchSize)
            {
                using var transaction = store.BeginWrite();
                for (var i = start; i < start + batchSize; i++)
                {
                    transaction.Put(tree, items.Keys[i], items.Values[i]);
                }

                transaction.Commit();
            }
        });
    }
}
