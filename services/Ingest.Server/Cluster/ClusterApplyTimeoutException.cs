namespace Ingest.Server.Cluster;

/// <summary>This node did not apply a cluster position within <see cref="ClusterOptions.ApplyTimeout"/>: answered 504.</summary>
internal sealed class ClusterApplyTimeoutException(string message) : TimeoutException(message);
