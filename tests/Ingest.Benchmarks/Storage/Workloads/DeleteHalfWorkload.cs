namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// Removes a random half of the keys of a freshly loaded tree (LoadedItems keys) in one durable
/// transaction: either as one sorted batch (<see cref="IWriteTransaction.DeleteSorted"/>) or with one
/// Delete call per key in random order, the way a caller without a batch API meets them.
/// The clock covers the deletes; the commit that follows writes the same modified pages either
/// way (for 1M keys it is most of the tree), so it is run, and its time printed, but not counted:
/// timing it would measure the journal write twice rather than the two ways of deleting. Before the clock starts the
/// store settles (<see cref="IKeyValueStore.Settle"/>): Ingest's flusher finishes writing the load into the data file, as
/// LMDB's commit already did.
/// </summary>
internal sealed class DeleteHalfWorkload(bool sortedBatch) : KeyValueWorkload
{
    public override string Name => sortedBatch ? "delete-sorted-batch" : "delete-one-by-one";

    public override string Unit => "deletes/s";

    public override string Target => sortedBatch ? ">= 5x one-by-one" : string.Empty;

    protected override WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context)
    {
        var tree = store.OpenTree(sortedBatch ? "delete-sorted" : "delete-each");
        WorkloadContext.LoadInOneTransaction(store, tree, context.Data.Loaded);
        var settle = System.Diagnostics.Stopwatch.StartNew();
        store.Settle(); // the load is setup: its flush must not run inside the timed deletes, nor leave one workload colder pages than the other
        context.Log.WriteLine($"[{store.Name}] {Name}: waited {settle.Elapsed.TotalMilliseconds:0} ms for the load to settle (not timed)");
        var keys = sortedBatch ? context.Data.DeleteInSortedOrder : context.Data.DeleteInRandomOrder;

        var deleted = 0;
        using var transaction = store.BeginWrite();
        var usage = default(ThreadUsage);
        var coldBefore = (store as IngestStorageSystem)?.ColdScratchPages ?? 0;
        var result = Measure.Operations(keys.Count, () =>
        {
            var before = ThreadUsage.Now();
            if (sortedBatch)
            {
                deleted = transaction.DeleteSorted(tree, keys);
            }
            else
            {
                for (var i = 0; i < keys.Count; i++)
                {
                    if (transaction.Delete(tree, keys[i]))
                    {
                        deleted++;
                    }
                }
            }

            usage = ThreadUsage.Now() - before;
        });
        var cold = store is IngestStorageSystem ingest ? $", {ingest.ColdScratchPages - coldBefore:N0} cold scratch pages" : string.Empty;
        context.Log.WriteLine($"[{store.Name}] {Name}: the deleting thread used {usage}{cold}");
        var commit = System.Diagnostics.Stopwatch.StartNew();
        transaction.Commit();
        context.Log.WriteLine($"[{store.Name}] {Name}: commit after the deletes took {commit.Elapsed.TotalMilliseconds:0} ms (not timed)");

        if (deleted != keys.Count)
        {
            throw new InvalidOperationException($"{store.Name} deleted {deleted} keys of {keys.Count}.");
        }

        VerifyHalfRemains(store, tree, context.Data.Loaded);
        return result;
    }

    private static void VerifyHalfRemains(IKeyValueStore store, TreeId tree, KeyValueSet loaded)
    {
        Span<byte> value = stackalloc byte[StorageSizes.ValueSize * 2];
        using var session = store.OpenReadSession();
        session.BeginRead();
        for (var i = 0; i < Math.Min(loaded.Count, 1_000); i++)
        {
            var present = session.Read(tree, loaded.Keys[i], value) >= 0;
            if (present != (i % 2 == 1))
            {
                throw new InvalidOperationException($"After deleting, key #{i} is {(present ? "present" : "missing")}.");
            }
        }

        session.EndRead();
    }
}
