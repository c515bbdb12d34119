namespace Ingest.Benchmarks.Cluster;

/// <summary>One cell of the cluster benchmark: a rate, or a latency figure (p50/p99 in milliseconds), with the CPU each node spent per document.</summary>
internal sealed record ClusterRow(string Workload, string System, double? OpsPerSec, double? P50Ms, double? P99Ms, double? CpuUsPerDocPerNode, string Note);
