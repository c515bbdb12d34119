namespace Ingest.Benchmarks.Reporting;

/// <summary>One line of the --json output; fields that do not apply to a workload are null and left out.</summary>
internal sealed record BenchmarkRecord(
    string Workload,
    string System,
    double? OpsPerSec,
    double? NsPerOp,
    double? BytesAllocatedPerOp,
    double? Value);
