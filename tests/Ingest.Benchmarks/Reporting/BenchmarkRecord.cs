namespace Ingest.Benchmarks.Reporting;

/// <summary>One line of the --json output; fields that do not apply to a workload are null and left out.</summary>
/// <param name="CommitP50Ms">Ingestion only: median durable batch commit, in milliseconds.</param>
/// <param name="CommitP99Ms">Ingestion only: 99th percentile durable batch commit, in milliseconds.</param>
/// <param name="BatchSizeP50">Ingestion only: median batch size, in documents.</param>
/// <param name="P50Ms">Latency workloads (cluster: replication lag, failover): median, in milliseconds.</param>
/// <param name="P99Ms">Latency workloads: 99th percentile, in milliseconds.</param>
internal sealed record BenchmarkRecord(
    string Workload,
    string System,
    double? OpsPerSec,
    double? NsPerOp,
    double? BytesAllocatedPerOp,
    double? Value,
    double? CommitP50Ms = null,
    double? CommitP99Ms = null,
    long? BatchSizeP50 = null,
    double? P50Ms = null,
    double? P99Ms = null);
