using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Documents;

internal sealed record DocumentResult(DocumentWorkload Workload, string System, WorkloadOutcome Outcome);
