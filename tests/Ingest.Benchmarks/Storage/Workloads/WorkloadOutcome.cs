namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>What running one workload on one system produced: a measurement, "not applicable", or a failure.</summary>
internal abstract record WorkloadOutcome;
