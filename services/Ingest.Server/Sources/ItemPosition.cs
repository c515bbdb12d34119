using Ingest.Documents;

namespace Ingest.Server.Sources;

/// <summary>Where a consumed message came from, as its <see cref="IngestItem"/> records it.</summary>
/// <param name="Origin">The position key: source name and topic or queue.</param>
/// <param name="Partition">The Kafka partition; 0 for RabbitMQ.</param>
/// <param name="Offset">The Kafka offset, or the AMQP delivery tag.</param>
/// <param name="Epoch">The source's generation of the partition or channel.</param>
/// <param name="LogTopic">
/// The bare topic name when the message came from a replicated log (Kafka): then (topic, partition, offset) names
/// it alike on every node, and the documents it produces record it. Null for a queue's delivery (RabbitMQ).
/// </param>
public readonly record struct ItemPosition(string Origin, int Partition, long Offset, int Epoch, string? LogTopic = null)
{
    /// <summary>The position as the store keeps it with a dead letter (the epoch is the source's own business).</summary>
    public SourcePosition ToSourcePosition() => new(Origin, Partition, Offset);

    /// <summary>The log position the message's documents record, or null if it came from no log.</summary>
    public LogPosition? ToLogPosition() => LogTopic is { } topic ? new LogPosition(topic, Partition, Offset) : null;
}
