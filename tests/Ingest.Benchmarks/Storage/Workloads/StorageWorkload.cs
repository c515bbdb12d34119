namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>One row of the storage benchmark.</summary>
internal abstract class StorageWorkload
{
    public abstract string Name { get; }

    /// <summary>What one operation is, as a rate: "items/s", "reads/s"...</summary>
    public abstract string Unit { get; }

    /// <summary>The target for the Ingest engine, shown beside the figures.</summary>
    public virtual string Target => string.Empty;

    /// <summary>Printed when no registered system can run the workload at all.</summary>
    public virtual string NoSystemReason => "no registered system supports it";

    /// <summary>Whether the table cell shows ns and bytes allocated per operation besides the rate.</summary>
    public virtual bool ShowsCostPerOp => false;

    public abstract WorkloadOutcome Run(IStorageSystem system, WorkloadContext context);

    public override string ToString() => Name;
}
