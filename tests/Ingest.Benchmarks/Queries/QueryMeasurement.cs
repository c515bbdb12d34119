using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// One cell of the queries benchmark: a system running a workload on <paramref name="Threads"/> threads at once.
/// <paramref name="QueriesPerSec"/> is completed queries over the elapsed time; <paramref name="Error"/> is set
/// (and the figures are 0) when the system failed the workload.
/// </summary>
internal sealed record QueryMeasurement(string Workload, string System, int Threads, double MedianMs, double P99Ms, double QueriesPerSec, long Queries, string? Error = null)
{
    /// <summary>The untimed warm-up before the cell was timed (how many rounds until the JIT settled).</summary>
    public JitWarmup.Result? Warmup { get; init; }

    /// <summary>Queries per second one thread gets at the median latency (the JSON's opsPerSec, as the issue asks).</summary>
    public double MedianOpsPerSec => MedianMs > 0 ? Threads * 1000 / MedianMs : 0;
}
