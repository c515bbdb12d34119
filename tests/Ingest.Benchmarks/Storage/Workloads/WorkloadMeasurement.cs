namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// A measured workload. Rates are per operation of the workload's unit (an item, a transaction, a read...).
/// <see cref="Value"/> carries figures that are not rates, such as bytes per id.
/// </summary>
internal sealed record WorkloadMeasurement(
    TimeSpan Elapsed,
    double? OpsPerSec = null,
    double? NsPerOp = null,
    double? BytesAllocatedPerOp = null,
    double? Value = null) : WorkloadOutcome
{
    public static WorkloadMeasurement FromRate(long operations, TimeSpan elapsed, long allocatedBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(operations);
        var seconds = Math.Max(elapsed.TotalSeconds, 1e-9);
        return new WorkloadMeasurement(
            elapsed,
            OpsPerSec: operations / seconds,
            NsPerOp: seconds * 1e9 / operations,
            BytesAllocatedPerOp: Math.Max(0, allocatedBytes) / (double)operations);
    }
}
