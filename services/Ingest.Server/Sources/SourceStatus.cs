using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>How a source is doing, for /stats and /health.</summary>
/// <param name="Name">The source's name.</param>
/// <param name="Kind">"kafka" or "rabbitmq".</param>
/// <param name="Connected">Whether it currently has a working broker connection.</param>
/// <param name="Error">The latest problem (connection, store), null when all is well.</param>
/// <param name="Consumed">Messages received from the broker.</param>
/// <param name="Written">Puts and deletes made durable.</param>
/// <param name="DeadLetters">Messages stored as dead letters.</param>
/// <param name="Paused">Whether consuming is paused because the store is behind.</param>
/// <param name="Partitions">Per topic partition or queue: committed position and lag, where known.</param>
/// <param name="Batching">The source's batch and commit figures.</param>
public sealed record SourceStatus(
    string Name,
    string Kind,
    bool Connected,
    string? Error,
    long Consumed,
    long Written,
    long DeadLetters,
    bool Paused,
    IReadOnlyList<PartitionStatus> Partitions,
    BatchStatistics Batching)
{
    /// <summary>A Kafka source's consumer group: its id, its other members (a split), records lost to retention; null for a queue.</summary>
    public SourceGroupStatus? Group { get; init; }
}
