namespace Ingest.Benchmarks.Storage.Workloads;

internal abstract class KeyValueWorkload : StorageWorkload
{
    public sealed override WorkloadOutcome Run(IStorageSystem system, WorkloadContext context) =>
        system is IKeyValueStore store
            ? Run(store, context)
            : new WorkloadNotApplicable($"{system.Name} is not a key-value store");

    protected abstract WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context);
}
