namespace Ingest.Server.Etl;

/// <summary>
/// The batches an ETL task handed to the broker and has not taken back acknowledged, in feed order.
/// Batches leave only from the head, so the progress built from them never passes a message the
/// broker has not acknowledged. Used by one caller at a time (the task's loop).
/// </summary>
internal sealed class EtlInFlightWindow
{
    private readonly Queue<EtlInFlightBatch> _batches = new();

    public int Count => _batches.Count;

    public void Add(EtlInFlightBatch batch) => _batches.Enqueue(batch);

    /// <summary>
    /// Moves the batches at the head that the broker acknowledged in full to <paramref name="acknowledged"/>, in
    /// feed order (first waiting for the head's acknowledgement when <paramref name="waitForHead"/>). Stops at the
    /// first batch still unacknowledged or failed; a failed one stays at the head.
    /// </summary>
    /// <returns>The delivery failure of the head batch, or null.</returns>
    public async Task<Exception?> TakeAcknowledgedAsync(List<EtlInFlightBatch> acknowledged, bool waitForHead, CancellationToken stop)
    {
        var taken = acknowledged.Count;
        while (_batches.TryPeek(out var head) && (head.Acknowledged.IsCompleted || (waitForHead && acknowledged.Count == taken)))
        {
            try
            {
                await head.Acknowledged.WaitAsync(stop).ConfigureAwait(false);
            }
            catch (Exception ex) when (!stop.IsCancellationRequested && ex is not OutOfMemoryException)
            {
                return ex;
            }

            _batches.Dequeue();
            acknowledged.Add(head);
        }

        return null;
    }

    /// <summary>Forgets the batches in flight; their acknowledgements may still fault, which nobody awaits any more.</summary>
    public void Abandon()
    {
        foreach (var batch in _batches)
        {
            _ = batch.Acknowledged.ContinueWith(
                static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        _batches.Clear();
    }
}
