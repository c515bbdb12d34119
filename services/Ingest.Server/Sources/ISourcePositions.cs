using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>
/// What a source tells its <see cref="BatchWriter"/> about where its items stand: which are still
/// its own, and the resume positions that commit with the items being written. Called on the
/// writer's loop only; acknowledging a durable batch is <see cref="IBatchAcknowledger"/>'s part.
/// </summary>
public interface ISourcePositions
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
}
