using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>
/// What a source tells its <see cref="BatchWriter"/>: which items are still its own, where it
/// resumes, and how to acknowledge once a batch is durable. Called on the writer's loop only.
/// </summary>
public interface IBatchAcknowledger
{
    /// <summary>
    /// False for an item from a partition or channel the source has since lost; it is dropped, and
    /// redelivered by the broker. Asked once per run of items with the same origin, partition and epoch.
    /// </summary>
    bool IsCurrent(in IngestItem item);

    /// <summary>
    /// Adds the resume positions (Kafka offsets) that <paramref name="items"/>, exactly the items
    /// being written (those <see cref="IsCurrent"/> accepted), imply to the batch.
    /// </summary>
    void AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items);

    /// <summary>Acknowledges the items to the broker; the batch is durable. Failures are the source's to handle.</summary>
    ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken);
}
