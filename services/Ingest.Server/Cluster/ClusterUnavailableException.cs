namespace Ingest.Server.Cluster;

/// <summary>A write could not be produced to the cluster topic (Kafka unreachable, refused, timed out): answered 503.</summary>
internal sealed class ClusterUnavailableException(string message, Exception? inner = null) : Exception(message, inner);
