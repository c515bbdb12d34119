namespace Ingest.Server.Cluster;

/// <summary>Where a write landed in the cluster topic, and why it was not applied (null when it was).</summary>
internal readonly record struct ClusterWriteResult(ClusterPosition Position, string? Failure);
