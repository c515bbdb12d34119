using System.Diagnostics;
using System.Globalization;
using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Resets a Kafka source's positions. A request waits here until the consume thread picks it up
/// between two polls; from then on nothing is consumed until the reset is done, in this order:
/// <list type="number">
/// <item>everything handed to the writer becomes durable, positions included, so no batch consumed
/// before the reset can commit its offsets after the new ones (nothing else adds to the writer
/// while the consume thread is here);</item>
/// <item>the broker resolves the target (<see cref="KafkaOffsetResolver"/>);</item>
/// <item>the new positions of every partition moved are written in one transaction;</item>
/// <item>the assigned partitions are seeked there (which also drops what the client prefetched);
/// partitions assigned elsewhere or later start from the store, as on any assignment.</item>
/// </list>
/// A failure before step 3 changes nothing.
/// </summary>
internal sealed partial class KafkaReset(
    string source, DocumentStore store, KafkaPartitionTable partitions, BatchWriter writer, KafkaOffsetResolver resolver,
    CancellationToken drainCancel, ILogger logger)
{
    // A partition assigned moments ago refuses a seek ("Local: Erroneous state") until its fetcher has started.
    private static readonly TimeSpan SeekRetryDelay = TimeSpan.FromMilliseconds(100);
    private const int SeekAttempts = 100;

    private KafkaResetRequest? _pending;

    /// <summary>Queues a request for the consume thread; one waits at a time.</summary>
    public void Post(KafkaResetRequest request)
    {
        if (Interlocked.CompareExchange(ref _pending, request, null) is not null)
        {
            throw new SourceResetException(SourceResetProblem.InProgress, $"Kafka source '{source}' has a reset waiting already; try again once it is done.");
        }
    }

    /// <summary>Fails a request that will never run (the source stopped).</summary>
    public void FailPending(string why) =>
        Interlocked.Exchange(ref _pending, null)?.Fail(new SourceResetException(SourceResetProblem.Unavailable, $"Kafka source '{source}' {why}; nothing was reset."));

    /// <summary>Runs the waiting request, if any. Consume thread only; never throws (the request carries the outcome).</summary>
    public void RunPending(IConsumer<byte[]?, byte[]?> consumer)
    {
        if (Volatile.Read(ref _pending) is null || Interlocked.Exchange(ref _pending, null) is not { } request)
        {
            return;
        }

        if (request.CancellationToken.IsCancellationRequested)
        {
            request.Fail(new OperationCanceledException(request.CancellationToken));
            return;
        }

        try
        {
            request.Succeed(Run(consumer, request));
        }
        catch (SourceResetException ex)
        {
            LogFailed(logger, source, request.Target, ex.Message);
            request.Fail(ex);
        }
        catch (KafkaException ex)
        {
            var failure = new SourceResetException(
                SourceResetProblem.Unavailable, $"Kafka source '{source}': the broker did not answer ({ex.Error.Reason}); nothing was reset.", ex);
            LogFailed(logger, source, request.Target, failure.Message);
            request.Fail(failure);
        }
    }

    private List<PartitionReset> Run(IConsumer<byte[]?, byte[]?> consumer, KafkaResetRequest request)
    {
        if (request.ResolveOnly)
        {
            var resolved = resolver.Resolve(consumer, request.Target);
            var offsets = new List<PartitionReset>(resolved.Count);
            foreach (var target in resolved)
            {
                offsets.Add(new PartitionReset(target.Topic, target.Partition.Value, null, target.Offset.Value));
            }

            return offsets;
        }

        var started = Stopwatch.GetTimestamp();
        Drain(request.CancellationToken);
        var drained = Stopwatch.GetElapsedTime(started);
        var targets = resolver.Resolve(consumer, request.Target);

        var batch = new WriteBatch();
        var moved = new List<PartitionReset>(targets.Count);
        foreach (var target in targets)
        {
            var state = partitions.Get(target.Topic, target.Partition.Value);
            long? from = store.GetSourcePosition(state.Origin, state.Partition) is { } stored ? stored.Position.NextOffset : null;
            batch.SetSourcePosition(state.Origin, state.Partition, target.Offset.Value);
            moved.Add(new PartitionReset(target.Topic, target.Partition.Value, from, target.Offset.Value));
        }

        try
        {
            store.WriteAsync(batch).GetAwaiter().GetResult();
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            throw new SourceResetException(
                SourceResetProblem.Unavailable, $"Kafka source '{source}': the store did not take the new positions ({ex.Message}); nothing was reset.", ex);
        }

        var assignment = consumer.Assignment;
        foreach (var target in targets)
        {
            if (assignment.Contains(target.TopicPartition))
            {
                partitions.Rewind(partitions.Get(target.Topic, target.Partition.Value), target.Offset.Value);
                Seek(consumer, target);
            }
        }

        LogReset(logger, source, request.Target, Describe(moved), (long)drained.TotalMilliseconds, (long)Stopwatch.GetElapsedTime(started).TotalMilliseconds);
        return moved;
    }

    private void Drain(CancellationToken requestCancelled)
    {
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(drainCancel, requestCancelled);
        try
        {
            writer.DrainAsync(cancel.Token).GetAwaiter().GetResult();
        }
        catch (OperationCanceledException ex)
        {
            throw new SourceResetException(
                SourceResetProblem.Unavailable,
                $"Kafka source '{source}': gave up waiting for the store to write what was consumed before the reset; nothing was reset.", ex);
        }
        catch (Exception ex) when (ex is InvalidOperationException or ObjectDisposedException)
        {
            throw new SourceResetException(SourceResetProblem.Unavailable, $"Kafka source '{source}': {ex.Message} Nothing was reset.", ex);
        }
    }

    private void Seek(IConsumer<byte[]?, byte[]?> consumer, TopicPartitionOffset target)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                consumer.Seek(target);
                return;
            }
            catch (KafkaException ex) when (ex.Error.Code == ErrorCode.Local_State && attempt < SeekAttempts && !drainCancel.IsCancellationRequested)
            {
                Thread.Sleep(SeekRetryDelay);
            }
            catch (KafkaException ex)
            {
                // The store has the new positions; the partition's next assignment starts there.
                throw new SourceResetException(
                    SourceResetProblem.Unavailable,
                    $"Kafka source '{source}': the new positions are stored, but {target.Topic}[{target.Partition.Value}] could not be moved there ({ex.Error.Reason}); restart the source to resume from them.",
                    ex);
            }
        }
    }

    internal static string Describe(List<PartitionReset> moved)
    {
        if (moved.Count == 0)
        {
            return "no partition";
        }

        var parts = new string[moved.Count];
        for (var i = 0; i < moved.Count; i++)
        {
            var m = moved[i];
            parts[i] = string.Create(CultureInfo.InvariantCulture, $"{m.Topic}[{m.Partition}] {(m.From is { } from ? from.ToString(CultureInfo.InvariantCulture) : "none")}->{m.To}");
        }

        return string.Join(", ", parts);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': reset to {Target}: {Partitions}; consuming resumed from there (in-flight batches written first in {DrainedMs} ms; the reset took {ElapsedMs} ms)")]
    private static partial void LogReset(ILogger logger, string source, SourceResetTarget target, string partitions, long drainedMs, long elapsedMs);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': reset to {Target} not done: {Reason}")]
    private static partial void LogFailed(ILogger logger, string source, SourceResetTarget target, string reason);
}
