using Ingest.Documents;

namespace Ingest.Server.Sources;

/// <summary>Where a consumed message came from, as its <see cref="IngestItem"/> records it.</summary>
/// <param name="Origin">The position key: source name and topic or queue.</param>
/// <param name="Partition">The Kafka partition; 0 for RabbitMQ.</param>
/// <param name="Offset">The Kafka offset, or the AMQP delivery tag.</param>
/// <param name="Epoch">The source's generation of the partition or channel.</param>
public readonly record struct ItemPosition(string Origin, int Partition, long Offset, int Epoch)
{
    /// <summary>The position as the store keeps it with a dead letter (the epoch is the source's own business).</summary>
    public SourcePosition ToSourcePosition() => new(Origin, Partition, Offset);
}
