namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// One item per durable transaction. The raw disk baseline runs here too: a 4 KiB append and an
/// fdatasync per operation, the floor under any durable commit on this disk.
/// </summary>
internal sealed class SingleDurableWorkload : StorageWorkload
{
    public override string Name => "single-durable";

    public override string Unit => "txs/s";

    public override string Target => ">= 0.6x disk";

    public override WorkloadOutcome Run(IStorageSystem system, WorkloadContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return system switch
        {
            IKeyValueStore store => RunTransactions(store, context.Data.Single),
            IDurableAppendLog log => RunAppends(log, context.Data.AppendBlock, context.Sizes.AppendSyncs),
            _ => new WorkloadNotApplicable($"{system.Name} has no durable writes"),
        };
    }

    private static WorkloadMeasurement RunTransactions(IKeyValueStore store, KeyValueSet items)
    {
        var tree = store.OpenTree("single");
        return Measure.Operations(items.Count, () =>
        {
            for (var i = 0; i < items.Count; i++)
            {
                using var transaction = store.BeginWrite();
                transaction.Put(tree, items.Keys[i], items.Values[i]);
                transaction.Commit();
            }
        });
    }

    private static WorkloadMeasurement RunAppends(IDurableAppendLog log, byte[] block, int count) =>
        Measure.Operations(count, () =>
        {
            for (var i = 0; i < count; i++)
            {
                log.AppendDurably(block);
            }
        });
}
