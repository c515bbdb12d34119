namespace Ingest.Contracts.Http;

/// <summary>A Kafka partition (or a queue, partition 0) of a source.</summary>
/// <param name="Name">The topic or queue.</param>
/// <param name="Partition">The partition; 0 for a queue.</param>
/// <param name="CommittedOffset">The next offset stored durably, when known.</param>
/// <param name="HighWatermark">The broker's end of the partition, when reported.</param>
/// <param name="Lag">Messages not yet durable, when known.</param>
public sealed record PartitionStatsEntry(string Name, int Partition, long? CommittedOffset, long? HighWatermark, long? Lag);
