namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>The system cannot run the workload; the reason is printed instead of a number.</summary>
internal sealed record WorkloadNotApplicable(string Reason) : WorkloadOutcome;
