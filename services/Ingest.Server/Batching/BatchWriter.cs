using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Batching;

/// <summary>
/// One source's path into the store: items go into a Nagle-style <see cref="Batcher{TItem}"/>,
/// and this class's loop writes each closed batch as one durable write batch together with the
/// source's positions and dead letters, then lets the source acknowledge. When the store falls
/// behind, <see cref="AddAsync"/> waits; that is how sources pause, and why memory stays bounded.
/// </summary>
/// <remarks>
/// The loop is here; its parts each have a file: <see cref="WritesInFlight"/> (the slots and the
/// order writes finish in), <see cref="WriteSlot"/> (one batch on its way into the store),
/// <see cref="WriteBatchBuilder"/> (items to a write), <see cref="WriteRetry"/> (a failed write
/// retried alone), <see cref="BatchTransform"/>, <see cref="DrainWaiters"/> and <see cref="BatchWriterCounters"/>.
/// What stays is the public surface and the loop, a little over 300 lines: the loop reads best whole.
/// </remarks>
public sealed partial class BatchWriter : IAsyncDisposable
{
    private readonly string _source;
    private readonly DocumentStore _store;
    private readonly IBatchAcknowledger _acknowledger;
    private readonly ILogger _logger;
    private readonly BatchTransform? _transform;
    private readonly Batcher<IngestItem> _batcher;
    private readonly BatchWriterCounters _counters;
    private readonly DrainWaiters _drains;
    private readonly WriteBatchBuilder _builder;
    private readonly WriteRetry _retry;
    private readonly WritesInFlight _inFlight = new();
    private readonly CancellationTokenSource _abort = new();
    private readonly Task _loop;

    public BatchWriter(
        string source, DocumentStore store, BatchingOptions options, ISourcePositions positions, IBatchAcknowledger acknowledger, ILogger logger,
        TimeProvider? timeProvider = null, BatchStatistics? statistics = null)
        : this(source, store, options, positions, acknowledger, logger, timeProvider, statistics, transform: null)
    {
    }

    /// <param name="transform">
    /// Runs a source's transform for an <see cref="IngestItemKind.AwaitingTransform"/> item; never
    /// throws for a message. Called on the writer's loop, in order, before the batch is built.
    /// </param>
    internal BatchWriter(
        string source, DocumentStore store, BatchingOptions options, ISourcePositions positions, IBatchAcknowledger acknowledger, ILogger logger,
        TimeProvider? timeProvider, BatchStatistics? statistics, Func<IngestItem, IngestItem>? transform)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(positions);
        ArgumentNullException.ThrowIfNull(acknowledger);
        ArgumentNullException.ThrowIfNull(logger);
        _source = source;
        _store = store;
        _acknowledger = acknowledger;
        _logger = logger;
        _transform = transform is null ? null : new BatchTransform(transform);
        _batcher = new Batcher<IngestItem>(options, timeProvider, statistics);
        _counters = new BatchWriterCounters(source, _batcher.Statistics);
        _drains = new DrainWaiters(source, _counters);

        // The store may trust a check at least as strict as its own.
        _builder = new WriteBatchBuilder(positions, mapperValidationSuffices: store.Options.MaxJsonDepth >= MessageMapper.MaxJsonDepth);
        _retry = new WriteRetry(source, store, _builder, _counters, logger, _abort.Token);
        _loop = Task.Factory.StartNew(RunAsync, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap();
    }

    public BatchStatistics Statistics => _batcher.Statistics;

    /// <summary>Items handed to the batcher.</summary>
    public long Added => _counters.Added;

    /// <summary>Items whose batch is durable and acknowledged (written, dropped as stale, or dead-lettered).</summary>
    public long Done => _counters.Done;

    /// <summary>Puts and deletes written.</summary>
    public long Written => _counters.Written;

    /// <summary>Items dropped because their partition or channel was lost before they were written; the broker redelivers them.</summary>
    public long Dropped => _counters.Dropped;

    /// <summary>Dead letters written, including messages the store itself rejected.</summary>
    public long DeadLetters => _counters.DeadLetters;

    /// <summary>The last store failure, while writes are failing; null once a write succeeds again.</summary>
    public string? LastError => _counters.LastError;

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
            _counters.AddAdded();
            return ValueTask.CompletedTask;
        }

        return AddAfterWaitAsync(pending);
    }

    /// <summary>Closes the open batch and waits until every item added so far is durable and acknowledged.</summary>
    public Task DrainAsync(CancellationToken cancellationToken = default)
    {
        if (!_drains.TryAdd(Added, _loop, out var done))
        {
            return done;
        }

        _batcher.Flush();
        return done.WaitAsync(cancellationToken);
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
        _counters.AddAdded();
    }

    private async Task RunAsync()
    {
        Task<Batch<IngestItem>?>? take = null;
        try
        {
            while (true)
            {
                // Oldest first, so acknowledgements and the done count follow the broker's order.
                while (_inFlight.TryTakeFinished(out var oldest))
                {
                    if (!await FinishAsync(oldest).ConfigureAwait(false))
                    {
                        return;
                    }

                    _inFlight.Return(oldest);
                }

                if (!_inFlight.CanStart)
                {
                    await ((Task)_inFlight.Oldest.Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                    continue;
                }

                take ??= _batcher.TakeAsync(CancellationToken.None).AsTask();
                if (!take.IsCompleted)
                {
                    // Wait for the next batch, or for the oldest write to become durable, whichever comes first.
                    if (_inFlight.Count == 0)
                    {
                        await ((Task)take).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                    }
                    else
                    {
                        await Task.WhenAny(take, _inFlight.Oldest.Pending!).ConfigureAwait(false);
                    }

                    continue;
                }

                var batch = await take.ConfigureAwait(false);
                take = null;
                if (batch is null)
                {
                    // Completed: finish what is in flight, in order.
                    while (_inFlight.TryTakeOldest(out var last))
                    {
                        await ((Task)last.Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                        if (!await FinishAsync(last).ConfigureAwait(false))
                        {
                            return;
                        }
                    }

                    return;
                }

                var slot = _inFlight.Rent();
                Start(slot, batch, _inFlight.Predecessor);
                _inFlight.Started(slot);
            }
        }
        catch (Exception ex)
        {
            LogWriterFailed(_logger, _source, ex);
            _counters.RecordFailure(ex.Message);
            _drains.Complete(ex);
            throw;
        }
        finally
        {
            // Writes still in flight are not acknowledged (the broker redelivers them, and a
            // redelivery of what did commit is skipped or idempotent).
            await _inFlight.AbandonAsync().ConfigureAwait(false);

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
                        IngestItem.ReturnRented(taken.Items);
                    }
                }
            }

            while (_batcher.TryTake(out var abandoned))
            {
                using (abandoned)
                {
                    IngestItem.ReturnRented(abandoned.Items);
                }
            }

            _drains.Fail();
        }
    }

    /// <summary>
    /// Builds the batch's write and hands it to the store without waiting, queued behind
    /// <paramref name="predecessor"/>'s write (see <see cref="WriteSlot.Submit"/>).
    /// </summary>
    private void Start(WriteSlot slot, Batch<IngestItem> batch, WriteSlot? predecessor)
    {
        slot.Batch = batch;
        slot.Activity = Telemetry.IngestTracing.StartBatch(_source, batch);
        Activity.Current = null;
        _transform?.Run(batch);
        slot.Counts = _builder.Build(batch.Items, slot);
        slot.Submit(_store, predecessor);
    }

    /// <summary>Completes a write whose task has finished: on failure retries it alone, then acknowledges. False if aborted.</summary>
    private async Task<bool> FinishAsync(WriteSlot slot)
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
                    _counters.Committed(batch, Stopwatch.GetElapsedTime(slot.Started), slot.Counts);
                }
                else
                {
                    _counters.AddDropped(slot.Counts.Dropped);
                }
            }
            else if (!await _retry.WriteAloneAsync(slot).ConfigureAwait(false))
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

        _counters.AddDone(count);
        _drains.Complete(exception: null);
        return true;
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

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': acknowledging a durable batch failed; the broker will redeliver it")]
    private static partial void LogAcknowledgeFailed(ILogger logger, string source, Exception exception);

    [LoggerMessage(Level = LogLevel.Critical, Message = "Source '{Source}': the batch writer stopped")]
    private static partial void LogWriterFailed(ILogger logger, string source, Exception exception);
}
