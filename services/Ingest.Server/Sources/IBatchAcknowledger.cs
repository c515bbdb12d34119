using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>
/// How a source acknowledges to its broker once a batch is durable (RabbitMQ: one multiple ack;
/// Kafka: offsets for the group). Called on the <see cref="BatchWriter"/>'s loop only, after the
/// commit that <see cref="ISourcePositions"/> added the positions to.
/// </summary>
public interface IBatchAcknowledger
{
    /// <summary>Acknowledges the items to the broker; the batch is durable. Failures are the source's to handle.</summary>
    ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken);
}
