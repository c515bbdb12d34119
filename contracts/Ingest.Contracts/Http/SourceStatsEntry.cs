namespace Ingest.Contracts.Http;

/// <summary>A source in <c>/stats</c>.</summary>
/// <param name="Name">The source's name.</param>
/// <param name="Kind">"kafka" or "rabbitmq".</param>
/// <param name="Connected">Whether it has a working broker connection.</param>
/// <param name="Error">Its latest problem, null when all is well.</param>
/// <param name="Consumed">Messages received.</param>
/// <param name="Written">Puts and deletes made durable.</param>
/// <param name="DeadLetters">Messages stored as dead letters.</param>
/// <param name="Paused">Whether consuming is paused because the store is behind.</param>
/// <param name="Partitions">Per partition or queue.</param>
/// <param name="Batching">Batch and commit figures.</param>
public sealed record SourceStatsEntry(
    string Name,
    string Kind,
    bool Connected,
    string? Error,
    long Consumed,
    long Written,
    long DeadLetters,
    bool Paused,
    IReadOnlyList<PartitionStatsEntry> Partitions,
    BatchingStatsEntry Batching);
