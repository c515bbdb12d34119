namespace Ingest.Benchmarks.Storage.Workloads;

internal sealed record WorkloadResult(StorageWorkload Workload, string System, WorkloadOutcome Outcome);
