namespace Ingest.Server.Sources;

/// <summary>One Kafka partition (or one RabbitMQ queue, partition 0) of a source.</summary>
/// <param name="Name">The topic or queue.</param>
/// <param name="Partition">The partition; 0 for a queue.</param>
/// <param name="CommittedOffset">The next offset stored durably with the documents; null when none yet, or for a queue.</param>
/// <param name="HighWatermark">The broker's end of the partition, when reported.</param>
/// <param name="Lag">Messages not yet durable: for Kafka the high watermark minus the committed offset, for a queue the messages ready in it, when reported.</param>
public sealed record PartitionStatus(string Name, int Partition, long? CommittedOffset, long? HighWatermark, long? Lag);
