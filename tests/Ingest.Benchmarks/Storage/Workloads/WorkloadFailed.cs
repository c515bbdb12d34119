namespace Ingest.Benchmarks.Storage.Workloads;

internal sealed record WorkloadFailed(Exception Error) : WorkloadOutcome;
