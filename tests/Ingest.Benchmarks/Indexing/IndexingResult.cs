using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Indexing;

internal sealed record IndexingResult(string Workload, string System, WorkloadOutcome Outcome);
