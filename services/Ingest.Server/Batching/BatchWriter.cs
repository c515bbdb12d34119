using System.Diagnostics;
using Ingest.Contracts.Mapping;
using Ingest.Documents;
using Ingest.Server.Sources;

namespace Ingest.Server.Batching;

/// <summary>
/// One source's path into the store: items go into a Nagle-style <see cref="Batcher{TItem}"/>,
/// and this class's loop writes each closed batch as one durable write batch together with the
/// source's positions and dead letters, then lets the source acknowledge. When the store falls
/// behind, <see cref="AddAsync"/> waits; that is how sources pause, and why memory stays bounded.
/// </summary>
public sealed partial class BatchWriter : IAsyncDisposable
{
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromSeconds(5);
    private static readonly Task<WriteResult> NothingToWrite = Task.FromResult(default(WriteResult));

    // One batch commits while the next is built and queued behind it (the store merges queued
    // batches into one transaction): the commit's sync no longer stalls building the next batch.
    private const int MaxWritesInFlight = 3;
    private const int MaxDeadLetterBytes = 1024 * 1024;

    private readonly string _source;
    private readonly DocumentStore _store;
    private readonly IBatchAcknowledger _acknowledger;
    private readonly ILogger _logger;
    private readonly Func<IngestItem, IngestItem>? _transform;
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
        : this(source, store, options, acknowledger, logger, timeProvider, statistics, transform: null)
    {
    }

    /// <param name="transform">
    /// Runs a source's transform for an <see cref="IngestItemKind.AwaitingTransform"/> item; never
    /// throws for a message. Called on the writer's loop, in order, before the batch is built.
    /// </param>
    internal BatchWriter(
        string source, DocumentStore store, BatchingOptions options, IBatchAcknowledger acknowledger, ILogger logger,
        TimeProvider? timeProvider, BatchStatistics? statistics, Func<IngestItem, IngestItem>? transform)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(acknowledger);
        ArgumentNullException.ThrowIfNull(logger);
        _source = source;
        _store = store;
        _acknowledger = acknowledger;
        _logger = logger;
        _transform = transform;
        _batcher = new Batcher<IngestItem>(options, timeProvider, statistics);
        _mapperValidationSuffices = store.Options.MaxJsonDepth >= MessageMapper.MaxJsonDepth; // the store may trust a check at least as strict as its own
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
        var flight = new Queue<WriteSlot>(MaxWritesInFlight);
        var free = new Stack<WriteSlot>(MaxWritesInFlight);
        for (var i = 0; i < MaxWritesInFlight; i++)
        {
            free.Push(new WriteSlot());
        }

        var included = new List<IngestItem>();
        var rejections = new Dictionary<int, string>();
        Task<Batch<IngestItem>?>? take = null;
        WriteSlot? newestStarted = null;

        // The newest batch that had something to write: while it is in flight, the next write
        // queues behind it, also when batches with nothing to write (every item dropped) came in
        // between. Once it is finished, it and everything before it is durable.
        WriteSlot? lastWrite = null;
        try
        {
            while (true)
            {
                // Oldest first, so acknowledgements and the done count follow the broker's order.
                while (flight.TryPeek(out var oldest) && oldest.Pending!.IsCompleted)
                {
                    if (!await FinishAsync(flight.Dequeue(), included, rejections).ConfigureAwait(false))
                    {
                        return;
                    }

                    free.Push(oldest);
                }

                // A slot whose write never reached the store (refused at once) cannot be a
                // predecessor: the next write waits until it has been retried and is durable.
                var newest = flight.Count > 0 ? newestStarted : null;
                var canStart = free.Count > 0 && (newest is null || newest.Enqueued);
                if (!canStart)
                {
                    await ((Task)flight.Peek().Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                    continue;
                }

                take ??= _batcher.TakeAsync(CancellationToken.None).AsTask();
                if (!take.IsCompleted)
                {
                    // Wait for the next batch, or for the oldest write to become durable, whichever comes first.
                    if (flight.Count == 0)
                    {
                        await ((Task)take).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                    }
                    else
                    {
                        await Task.WhenAny(take, flight.Peek().Pending!).ConfigureAwait(false);
                    }

                    continue;
                }

                var batch = await take.ConfigureAwait(false);
                take = null;
                if (batch is null)
                {
                    // Completed: finish what is in flight, in order.
                    while (flight.TryDequeue(out var last))
                    {
                        await ((Task)last.Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                        if (!await FinishAsync(last, included, rejections).ConfigureAwait(false))
                        {
                            return;
                        }
                    }

                    return;
                }

                var slot = free.Pop();
                Start(slot, batch, lastWrite is { IsInFlight: true } ? lastWrite : null, included, rejections);
                flight.Enqueue(slot);
                newestStarted = slot;
                if (slot.Write.Count > 0)
                {
                    lastWrite = slot;
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
            // Writes still in flight are not acknowledged (the broker redelivers them, and a
            // redelivery of what did commit is skipped or idempotent); their buffers go back once
            // the store is done with their batches.
            while (flight.TryDequeue(out var abandoned))
            {
                await ((Task)abandoned.Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                abandoned.Release();
            }

            // Batches that will never be written: not acknowledged (the broker redelivers them),
            // but their pooled buffers are returned.
            _batcher.Complete();
            if (take is not null)
            {
                await ((Task)take).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                if (take.IsCompletedSuccessfully && take.Result is { } taken)
                {
                    using (taken)
                    {
                        ReturnRented(taken.Items);
                    }
                }
            }

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

    /// <summary>
    /// Builds the batch's write and hands it to the store without waiting: queued behind
    /// <paramref name="predecessor"/>'s write, it commits only if that one did, so a later batch's
    /// positions never become durable past an earlier batch that failed.
    /// </summary>
    private void Start(WriteSlot slot, Batch<IngestItem> batch, WriteSlot? predecessor, List<IngestItem> included, Dictionary<int, string> rejections)
    {
        rejections.Clear();
        slot.Batch = batch;
        slot.Activity = Telemetry.IngestTracing.StartBatch(_source, batch);
        Activity.Current = null;
        RunTransforms(batch);
        (slot.Written, slot.DeadLetters, slot.Dropped) = Build(batch.Items, slot.Write, slot.OperationItems, included, rejections);
        slot.Started = Stopwatch.GetTimestamp();
        slot.Enqueued = false;
        if (slot.Write.Count == 0)
        {
            slot.Pending = NothingToWrite;
            slot.Enqueued = true;
            return;
        }

        try
        {
            slot.Pending = predecessor is null ? _store.WriteAsync(slot.Write) : _store.WriteAfterAsync(slot.Write, predecessor.Write);
            slot.Enqueued = true;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // Refused at once (e.g. a message the store rejects): the retry path below deals with it.
            slot.Pending = Task.FromException<WriteResult>(ex);
        }
    }

    /// <summary>
    /// Replaces each item awaiting its transform by what the script made of it, in place and in
    /// order, so a retried write reuses the results and the positions commit with them.
    /// </summary>
    private void RunTransforms(Batch<IngestItem> batch)
    {
        if (_transform is null)
        {
            return;
        }

        var items = batch.ItemsToUpdate;
        for (var i = 0; i < items.Length; i++)
        {
            if (items[i].Kind == IngestItemKind.AwaitingTransform)
            {
                items[i] = _transform(items[i]);
            }
        }
    }

    /// <summary>Completes a write whose task has finished: on failure retries it alone, then acknowledges. False if aborted.</summary>
    private async Task<bool> FinishAsync(WriteSlot slot, List<IngestItem> included, Dictionary<int, string> rejections)
    {
        var batch = slot.Batch!;
        var count = batch.Count;
        try
        {
            Activity.Current = slot.Activity;
            if (slot.Pending!.IsCompletedSuccessfully)
            {
                if (slot.Write.Count > 0)
                {
                    Committed(batch, Stopwatch.GetElapsedTime(slot.Started), slot.Written, slot.DeadLetters, slot.Dropped);
                }
                else
                {
                    Interlocked.Add(ref _dropped, slot.Dropped);
                }
            }
            else if (!await WriteDurablyAsync(batch, slot.Write, slot.OperationItems, included, rejections, slot.Pending).ConfigureAwait(false))
            {
                return false;
            }

            await AcknowledgeAsync(batch).ConfigureAwait(false);
        }
        finally
        {
            // Written, aborted or failed: the batch's pooled buffers go back either way.
            slot.Release();
            Activity.Current = null;
        }

        Interlocked.Add(ref _done, count);
        CompleteDrains(exception: null);
        return true;
    }

    private void Committed(Batch<IngestItem> batch, TimeSpan commitLatency, long written, long deadLetters, long dropped)
    {
        _batcher.Statistics.RecordCommit(commitLatency);
        Telemetry.IngestMetrics.BatchCommitted(_source, batch, commitLatency);
        Interlocked.Add(ref _written, written);
        Interlocked.Add(ref _deadLetters, deadLetters);
        Interlocked.Add(ref _dropped, dropped);
        Volatile.Write(ref _lastError, null);
    }

    /// <summary>
    /// After <paramref name="failed"/>, the batch's first write (built from <paramref name="write"/> with no
    /// rejections), failed: writes the batch alone, retrying until it is durable; false if aborted before it was.
    /// </summary>
    private async Task<bool> WriteDurablyAsync(
        Batch<IngestItem> batch, WriteBatch write, List<int> operationItems, List<IngestItem> included, Dictionary<int, string> rejections,
        Task<WriteResult> failed)
    {
        rejections.Clear();
        var delay = TimeSpan.FromMilliseconds(100);
        Task<WriteResult>? first = failed;
        while (true)
        {
            (long Written, long DeadLetters, long Dropped) counts = default;
            if (first is null)
            {
                counts = Build(batch.Items, write, operationItems, included, rejections);
                if (write.Count == 0)
                {
                    Interlocked.Add(ref _dropped, counts.Dropped);
                    return true;
                }
            }

            var started = Stopwatch.GetTimestamp();
            try
            {
                var attempt = first ?? _store.WriteAsync(write);
                first = null;
                await attempt.ConfigureAwait(false);
                Committed(batch, Stopwatch.GetElapsedTime(started), counts.Written, counts.DeadLetters, counts.Dropped);
                return true;
            }
            catch (PredecessorWriteFailedException)
            {
                // The batch before this one failed and has since been written alone: so is this one, at once.
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

        // Items come in runs from one partition and epoch: ask the source once per run (a lock and
        // a lookup each), and copy the items being written aside only once one is dropped.
        string? runOrigin = null;
        int runPartition = 0, runEpoch = 0;
        var runCurrent = false;
        var allIncluded = true;
        for (var i = 0; i < items.Length; i++)
        {
            ref readonly var item = ref items[i];
            if (!ReferenceEquals(item.Origin, runOrigin) || item.Partition != runPartition || item.Epoch != runEpoch)
            {
                runCurrent = _acknowledger.IsCurrent(item);
                (runOrigin, runPartition, runEpoch) = (item.Origin, item.Partition, item.Epoch);
            }

            if (!runCurrent)
            {
                if (allIncluded)
                {
                    allIncluded = false;
                    for (var j = 0; j < i; j++)
                    {
                        included.Add(items[j]);
                    }
                }

                dropped++;
                continue;
            }

            if (!allIncluded)
            {
                included.Add(item);
            }

            if (rejections.Count > 0 && rejections.TryGetValue(i, out var problem))
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
                    write.AddDeadLetter(item.Payload.Span, new SourcePosition(item.Origin, item.Partition, item.Offset), item.DeadLetterReason ?? (item.Kind == IngestItemKind.AwaitingTransform ? "not transformed: the source has no transform" : "unknown"));
                    deadLetters++;
                    break;
            }
        }

        var beingWritten = allIncluded ? items : System.Runtime.InteropServices.CollectionsMarshal.AsSpan(included);
        if (beingWritten.Length > 0)
        {
            // Positions commit in the same transaction as the documents they account for, and
            // for exactly those: the source may lose a partition while this batch is built.
            _acknowledger.AddPositions(write, beingWritten);
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

    /// <summary>One batch on its way into the store: its write, and what to account for once it is durable.</summary>
    private sealed class WriteSlot
    {
        public WriteBatch Write { get; } = new();

        public List<int> OperationItems { get; } = [];

        public Batch<IngestItem>? Batch { get; set; }

        /// <summary>Started and not yet finished (or abandoned).</summary>
        public bool IsInFlight => Batch is not null;

        public Activity? Activity { get; set; }

        public Task<WriteResult>? Pending { get; set; }

        /// <summary>Whether <see cref="Pending"/> is the store's (the write is queued there), not a refusal at once.</summary>
        public bool Enqueued { get; set; }

        public long Started { get; set; }

        public long Written { get; set; }

        public long DeadLetters { get; set; }

        public long Dropped { get; set; }

        /// <summary>Returns the batch's pooled buffers and the batch; the store must be done with the write.</summary>
        public void Release()
        {
            if (Batch is { } batch)
            {
                ReturnRented(batch.Items);
                batch.Dispose();
            }

            Batch = null;
            Activity?.Dispose();
            Activity = null;
            Pending = null;
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
