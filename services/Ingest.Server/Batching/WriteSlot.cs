using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Sources;

namespace Ingest.Server.Batching;

/// <summary>
/// One batch on its way into the store: the write built from it, which item each of the write's
/// operations came from, the items the store refused, and the write's task. A writer reuses a
/// few slots; everything here belongs to the writer's loop.
/// </summary>
internal sealed class WriteSlot
{
    private static readonly Task<WriteResult> NothingToWrite = Task.FromResult(default(WriteResult));

    public WriteBatch Write { get; } = new();

    /// <summary>For each operation of <see cref="Write"/>, the index of the batch item it came from.</summary>
    public List<int> OperationItems { get; } = [];

    /// <summary>The store's refusals while the batch is retried alone, by item index: those items become dead letters.</summary>
    public Dictionary<int, string> Rejections { get; } = [];

    public Batch<IngestItem>? Batch { get; set; }

    /// <summary>Started and not yet finished (or abandoned).</summary>
    public bool IsInFlight => Batch is not null;

    public Activity? Activity { get; set; }

    public Task<WriteResult>? Pending { get; private set; }

    /// <summary>Whether <see cref="Pending"/> is the store's (the write is queued there), not a refusal at once.</summary>
    public bool Enqueued { get; private set; }

    /// <summary>When the write was handed to the store (<see cref="Stopwatch.GetTimestamp"/>).</summary>
    public long Started { get; private set; }

    public WriteCounts Counts { get; set; }

    /// <summary>
    /// Hands the built write to the store without waiting: queued behind <paramref name="predecessor"/>'s
    /// write, it commits only if that one did, so a later batch's positions never become durable
    /// past an earlier batch that failed.
    /// </summary>
    public void Submit(DocumentStore store, WriteSlot? predecessor)
    {
        Started = Stopwatch.GetTimestamp();
        Enqueued = false;
        if (Write.Count == 0)
        {
            Pending = NothingToWrite;
            Enqueued = true;
            return;
        }

        try
        {
            Pending = predecessor is null ? store.WriteAsync(Write) : store.WriteAfterAsync(Write, predecessor.Write);
            Enqueued = true;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // Refused at once (e.g. a message the store rejects): the retry path deals with it.
            Pending = Task.FromException<WriteResult>(ex);
        }
    }

    /// <summary>Whether the store's refusal of operation <paramref name="operationIndex"/> names an item not refused yet.</summary>
    public bool CanReject(int operationIndex) =>
        operationIndex >= 0 && operationIndex < OperationItems.Count
        && OperationItems[operationIndex] >= 0 && !Rejections.ContainsKey(OperationItems[operationIndex]);

    /// <summary>Makes the item behind operation <paramref name="operationIndex"/> a dead letter in the next build.</summary>
    public void Reject(int operationIndex, string problem) => Rejections[OperationItems[operationIndex]] = problem;

    /// <summary>Returns the batch's pooled buffers and the batch; the store must be done with the write.</summary>
    public void Release()
    {
        if (Batch is { } batch)
        {
            IngestItem.ReturnRented(batch.Items);
            batch.Dispose();
        }

        Batch = null;
        Rejections.Clear();
        Activity?.Dispose();
        Activity = null;
        Pending = null;
    }
}
