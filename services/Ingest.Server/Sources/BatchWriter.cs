using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>
/// One source's path into the store: items go into a Nagle-style <see cref="Batcher{TItem}"/>,
/// and this class's loop writes each closed batch as one durable write batch together with the
/// source's positions and dead letters, then lets the source acknowledge. When the store falls
/// behind, <see cref="AddAsync"/> waits; that is how sources pause, and why memory stays bounded.
/// </summary>
public sealed partial class BatchWriter : IAsyncDisposable
{
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromSeconds(5);
    private const int MaxDeadLetterBytes = 1024 * 1024;

    // The mapper reads bodies with the JSON reader's default depth limit; the store may trust its
    // check only when the store's own limit is at least as loose.
    private const int MapperMaxJsonDepth = 64;

    private readonly string _source;
    private readonly DocumentStore _store;
    private readonly IBatchAcknowledger _acknowledger;
    private readonly ILogger _logger;
    private readonly Batcher<IngestItem> _batcher;
    private readonly bool _mapperValidationSuffices;
    private readonly CancellationTokenSource _abort = new();
    private readonly Lock _drainLock = new();
    private readonly List<(long Target, TaskCompletionSource Done)> _drains = [];
    private readonly Task _loop;
    private long _added;
    private long _done;
    private long _written;
    private long _dropped;
    private long _deadLetters;
    private string? _lastError;

    public BatchWriter(
        string source, DocumentStore store, BatchingOptions options, IBatchAcknowledger acknowledger, ILogger logger,
        TimeProvider? timeProvider = null, BatchStatistics? statistics = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(acknowledger);
        ArgumentNullException.ThrowIfNull(logger);
        _source = source;
        _store = store;
        _acknowledger = acknowledger;
        _logger = logger;
        _batcher = new Batcher<IngestItem>(options, timeProvider, statistics);
        _mapperValidationSuffices = store.Options.MaxJsonDepth >= MapperMaxJsonDepth;
        _loop = Task.Factory.StartNew(RunAsync, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap();
    }

    public BatchStatistics Statistics => _batcher.Statistics;

    /// <summary>Items handed to the batcher.</summary>
    public long Added => Volatile.Read(ref _added);

    /// <summary>Items whose batch is durable and acknowledged (written, dropped as stale, or dead-lettered).</summary>
    public long Done => Volatile.Read(ref _done);

    /// <summary>Puts and deletes written.</summary>
    public long Written => Volatile.Read(ref _written);

    /// <summary>Items dropped because their partition or channel was lost before they were written; the broker redelivers them.</summary>
    public long Dropped => Volatile.Read(ref _dropped);

    /// <summary>Dead letters written, including messages the store itself rejected.</summary>
    public long DeadLetters => Volatile.Read(ref _deadLetters);

    /// <summary>The last store failure, while writes are failing; null once a write succeeds again.</summary>
    public string? LastError => Volatile.Read(ref _lastError);

    /// <summary>True once the loop has stopped, normally or not.</summary>
    public bool IsStopped => _loop.IsCompleted;

    /// <summary>
    /// Queues an item. Completes at once unless the store has fallen behind, in which case it
    /// waits for room (the caller pauses its consumer meanwhile). Cancelled means not added.
    /// </summary>
    public ValueTask AddAsync(IngestItem item, CancellationToken cancellationToken = default)
    {
        var pending = _batcher.AddAsync(item, item.SizeBytes, cancellationToken);
        if (pending.IsCompletedSuccessfully)
        {
            Interlocked.Increment(ref _added);
            return ValueTask.CompletedTask;
        }

        return AddAfterWaitAsync(pending);
    }

    /// <summary>Closes the open batch and waits until every item added so far is durable and acknowledged.</summary>
    public Task DrainAsync(CancellationToken cancellationToken = default)
    {
        var target = Added;
        TaskCompletionSource done;
        lock (_drainLock)
        {
            if (Done >= target)
            {
                return Task.CompletedTask;
            }

            if (_loop.IsCompleted)
            {
                return Task.FromException(new InvalidOperationException($"Source '{_source}': the batch writer has stopped."));
            }

            done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _drains.Add((target, done));
        }

        _batcher.Flush();
        return done.Task.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Takes no more items, writes what is queued and waits for it. Cancelling gives up on
    /// failing writes; what was not written is not acknowledged, so the broker redelivers it.
    /// </summary>
    public async Task CompleteAsync(CancellationToken cancellationToken = default)
    {
        _batcher.Complete();
        using var registration = cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), _abort);
        await _loop.ConfigureAwait(false);
    }

    /// <summary>Gives up on what is not durable yet (the broker redelivers it) and releases everything; never throws.</summary>
    public async ValueTask DisposeAsync()
    {
        await _abort.CancelAsync().ConfigureAwait(false);
        _batcher.Complete();
        try
        {
            await _loop.ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // Logged by the loop when it failed; disposing still releases everything below.
        }
        finally
        {
            _batcher.Dispose();
            _abort.Dispose();
        }
    }

    private async ValueTask AddAfterWaitAsync(ValueTask pending)
    {
        await pending.ConfigureAwait(false);
        Interlocked.Increment(ref _added);
    }

    private async Task RunAsync()
    {
        var write = new WriteBatch();
        var operationItems = new List<int>();
        var included = new List<IngestItem>();
        var rejections = new Dictionary<int, string>();
        try
        {
            while (await _batcher.TakeAsync(CancellationToken.None).ConfigureAwait(false) is { } batch)
            {
                using (batch)
                using (Telemetry.IngestTracing.StartBatch(_source, batch))
                {
                    try
                    {
                        if (!await WriteDurablyAsync(batch, write, operationItems, included, rejections).ConfigureAwait(false))
                        {
                            return;
                        }

                        await AcknowledgeAsync(batch).ConfigureAwait(false);
                    }
                    finally
                    {
                        // Written, aborted or failed: the batch's pooled buffers go back either way.
                        ReturnRented(batch.Items);
                    }

                    Interlocked.Add(ref _done, batch.Count);
                    CompleteDrains(exception: null);
                }
            }
        }
        catch (Exception ex)
        {
            LogWriterFailed(_logger, _source, ex);
            Volatile.Write(ref _lastError, ex.Message);
            CompleteDrains(ex);
            throw;
        }
        finally
        {
            // Batches that will never be written: not acknowledged (the broker redelivers them),
            // but their pooled buffers are returned.
            _batcher.Complete();
            while (_batcher.TryTake(out var abandoned))
            {
                using (abandoned)
                {
                    ReturnRented(abandoned.Items);
                }
            }

            CompleteDrains(new InvalidOperationException($"Source '{_source}': the batch writer has stopped."));
        }
    }

    /// <summary>Writes the batch; false if aborted before it was durable.</summary>
    private async Task<bool> WriteDurablyAsync(
        Batch<IngestItem> batch, WriteBatch write, List<int> operationItems, List<IngestItem> included, Dictionary<int, string> rejections)
    {
        rejections.Clear();
        var delay = TimeSpan.FromMilliseconds(100);
        while (true)
        {
            var (written, deadLetters, dropped) = Build(batch.Items, write, operationItems, included, rejections);
            if (write.Count == 0)
            {
                Interlocked.Add(ref _dropped, dropped);
                return true;
            }

            var started = Stopwatch.GetTimestamp();
            try
            {
                await _store.WriteAsync(write).ConfigureAwait(false);
                var commitLatency = Stopwatch.GetElapsedTime(started);
                _batcher.Statistics.RecordCommit(commitLatency);
                Telemetry.IngestInstruments.BatchCommitted(_source, batch, commitLatency);
                Interlocked.Add(ref _written, written);
                Interlocked.Add(ref _deadLetters, deadLetters);
                Interlocked.Add(ref _dropped, dropped);
                Volatile.Write(ref _lastError, null);
                return true;
            }
            catch (InvalidDocumentException ex) when (ex.OperationIndex >= 0 && ex.OperationIndex < operationItems.Count
                && operationItems[ex.OperationIndex] >= 0 && !rejections.ContainsKey(operationItems[ex.OperationIndex]))
            {
                // The mapper and the store should agree on what is valid; if they do not, the
                // message becomes a dead letter instead of holding up everything behind it.
                var item = operationItems[ex.OperationIndex];
                rejections[item] = ex.Problem ?? ex.Message;
                LogRejected(_logger, _source, ex.Message);
            }
            catch (Exception ex) when (ex is not ObjectDisposedException)
            {
                Volatile.Write(ref _lastError, ex.Message);
                LogWriteFailed(_logger, _source, delay, ex);
                try
                {
                    await Task.Delay(delay, _abort.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }

                delay = TimeSpan.FromTicks(Math.Min(delay.Ticks * 2, MaxRetryDelay.Ticks));
            }
        }
    }

    private (long Written, long DeadLetters, long Dropped) Build(
        ReadOnlySpan<IngestItem> items, WriteBatch write, List<int> operationItems, List<IngestItem> included, Dictionary<int, string> rejections)
    {
        write.Clear();
        operationItems.Clear();
        included.Clear();
        long written = 0, deadLetters = 0, dropped = 0;
        for (var i = 0; i < items.Length; i++)
        {
            ref readonly var item = ref items[i];
            if (!_acknowledger.IsCurrent(item))
            {
                dropped++;
                continue;
            }

            included.Add(item);
            if (rejections.TryGetValue(i, out var problem))
            {
                var raw = item.Payload.Length <= MaxDeadLetterBytes ? item.Payload.Span : item.Payload.Span[..MaxDeadLetterBytes];
                var reason = item.Kind switch
                {
                    IngestItemKind.DeadLetter => $"{item.DeadLetterReason} (stored truncated to {raw.Length} of {item.Payload.Length} bytes: {problem})",
                    IngestItemKind.Transformed => $"Rejected by the store: the transform's output: {problem}",
                    _ => $"Rejected by the store: {problem}",
                };
                operationItems.Add(i);
                write.AddDeadLetter(raw, new SourcePosition(item.Origin, item.Partition, item.Offset), reason);
                deadLetters++;
                continue;
            }

            switch (item.Kind)
            {
                case IngestItemKind.Put when item.BodyValidated && _mapperValidationSuffices:
                    operationItems.Add(i);
                    write.PutValidated(item.Id!, item.Collection!, item.Payload.Span);
                    written++;
                    break;
                case IngestItemKind.Put:
                    operationItems.Add(i);
                    write.Put(item.Id!, item.Collection!, item.Payload.Span);
                    written++;
                    break;
                case IngestItemKind.Delete:
                    operationItems.Add(i);
                    write.Delete(item.Id!);
                    written++;
                    break;
                case IngestItemKind.Transformed:
                    // Each operation points back at its message: one the store refuses turns the
                    // whole message into a dead letter, so a message never half-applies.
                    var operations = item.Operations!;
                    for (var j = 0; j < operations.Count; j++)
                    {
                        operationItems.Add(i);
                        var operation = operations[j];
                        if (operation.Kind == IngestItemKind.Delete)
                        {
                            write.Delete(operation.Id);
                        }
                        else
                        {
                            write.Put(operation.Id, operation.Collection!, operation.Body);
                        }
                    }

                    written += operations.Count;
                    break;
                default:
                    operationItems.Add(i);
                    write.AddDeadLetter(item.Payload.Span, new SourcePosition(item.Origin, item.Partition, item.Offset), item.DeadLetterReason ?? "unknown");
                    deadLetters++;
                    break;
            }
        }

        if (included.Count > 0)
        {
            // Positions commit in the same transaction as the documents they account for, and
            // for exactly those: the source may lose a partition while this batch is built.
            _acknowledger.AddPositions(write, System.Runtime.InteropServices.CollectionsMarshal.AsSpan(included));
        }

        return (written, deadLetters, dropped);
    }

    private async Task AcknowledgeAsync(Batch<IngestItem> batch)
    {
        try
        {
            await _acknowledger.AcknowledgeAsync(batch, _abort.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            // The batch is durable; a failed acknowledgement only means the broker redelivers,
            // and redelivered messages are skipped (Kafka positions) or idempotent (puts by id).
            LogAcknowledgeFailed(_logger, _source, ex);
        }
        catch (OperationCanceledException)
        {
        }
    }

    private static void ReturnRented(ReadOnlySpan<IngestItem> items)
    {
        for (var i = 0; i < items.Length; i++)
        {
            items[i].ReturnRented();
        }
    }

    private void CompleteDrains(Exception? exception)
    {
        lock (_drainLock)
        {
            var done = Done;
            for (var i = _drains.Count - 1; i >= 0; i--)
            {
                if (exception is not null)
                {
                    _drains[i].Done.TrySetException(exception);
                }
                else if (_drains[i].Target <= done)
                {
                    _drains[i].Done.TrySetResult();
                }
                else
                {
                    continue;
                }

                _drains.RemoveAt(i);
            }
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': the store rejected a message, stored as a dead letter instead: {Problem}")]
    private static partial void LogRejected(ILogger logger, string source, string problem);

    [LoggerMessage(Level = LogLevel.Error, Message = "Source '{Source}': writing a batch failed; retrying in {Delay} (nothing is acknowledged until it succeeds)")]
    private static partial void LogWriteFailed(ILogger logger, string source, TimeSpan delay, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': acknowledging a durable batch failed; the broker will redeliver it")]
    private static partial void LogAcknowledgeFailed(ILogger logger, string source, Exception exception);

    [LoggerMessage(Level = LogLevel.Critical, Message = "Source '{Source}': the batch writer stopped")]
    private static partial void LogWriterFailed(ILogger logger, string source, Exception exception);
}
