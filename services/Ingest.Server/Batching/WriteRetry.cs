using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Hosting;

namespace Ingest.Server.Batching;

/// <summary>
/// What happens after a batch's write failed: the batch is written again alone, rebuilt each time,
/// until it is durable. A message the store refuses becomes a dead letter (the mapper and the store
/// should agree on what is valid; when they do not, one message must not hold up everything behind
/// it); any other failure is retried after a delay that doubles from 100 ms up to 5 s.
/// Nothing is acknowledged meanwhile.
/// </summary>
internal sealed partial class WriteRetry(
    string source, DocumentStore store, WriteBatchBuilder builder, BatchWriterCounters counters, ILogger logger, CancellationToken abort)
{
    private static readonly TimeSpan FirstDelay = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan MaxDelay = TimeSpan.FromSeconds(5);

    /// <summary>
    /// After the slot's first write (built with no rejections) failed: writes its batch alone,
    /// retrying until it is durable; false if aborted before it was.
    /// </summary>
    public async Task<bool> WriteAloneAsync(WriteSlot slot)
    {
        var batch = slot.Batch!;
        slot.Rejections.Clear();
        slot.Counts = default; // the failed first write counts nothing
        var backoff = new RetryBackoff(FirstDelay, MaxDelay);
        Task<WriteResult>? first = slot.Pending;
        while (true)
        {
            if (first is null)
            {
                slot.Counts = builder.Build(batch.Items, slot);
                if (slot.Write.Count == 0)
                {
                    counters.AddDropped(slot.Counts.Dropped);
                    return true;
                }
            }

            var started = Stopwatch.GetTimestamp();
            try
            {
                var attempt = first ?? store.WriteAsync(slot.Write);
                first = null;
                await attempt.ConfigureAwait(false);
                counters.Committed(batch, Stopwatch.GetElapsedTime(started), slot.Counts);
                return true;
            }
            catch (PredecessorWriteFailedException)
            {
                // The batch before this one failed and has since been written alone: so is this one, at once.
            }
            catch (InvalidDocumentException ex) when (slot.CanReject(ex.OperationIndex))
            {
                // The mapper and the store should agree on what is valid; if they do not, the
                // message becomes a dead letter instead of holding up everything behind it.
                slot.Reject(ex.OperationIndex, ex.Problem ?? ex.Message);
                LogRejected(logger, source, ex.Message);
            }
            catch (Exception ex) when (ex is not ObjectDisposedException)
            {
                counters.RecordFailure(ex.Message);
                LogWriteFailed(logger, source, backoff.Delay, ex);
                try
                {
                    await Task.Delay(backoff.Delay, abort).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }

                backoff.Failed();
            }
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': the store rejected a message, stored as a dead letter instead: {Problem}")]
    private static partial void LogRejected(ILogger logger, string source, string problem);

    [LoggerMessage(Level = LogLevel.Error, Message = "Source '{Source}': writing a batch failed; retrying in {Delay} (nothing is acknowledged until it succeeds)")]
    private static partial void LogWriteFailed(ILogger logger, string source, TimeSpan delay, Exception exception);
}
