using Ingest.Documents;
using Ingest.Server.Hosting;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// One ETL task's loop: reads the changes feed after the last etag read in batches bounded by bytes
/// and time (<see cref="EtlChangeReader"/>), transforms them into messages and hands them to the broker
/// client (<see cref="EtlPublisher"/>), then reads the next batch while the broker acknowledges the
/// earlier ones (<see cref="EtlInFlightWindow"/>: at most <see cref="EtlPipelineLimits.MaxBatchesInFlight"/>
/// unacknowledged or not yet recorded). Progress (<see cref="EtlProgressRecorder"/>) only moves over
/// batches acknowledged in full, in feed order: never past an unacknowledged message, so after a crash
/// at most the unrecorded tail is sent again (at-least-once, with the CloudEvents id to de-duplicate).
/// It is recorded one durable write at a time while the loop goes on sending. The documents whose
/// transform failed are recorded with their batch. A failed delivery abandons every batch in flight
/// and, after a backoff (one second, doubled up to a minute: <see cref="RetryBackoff"/>), reads again
/// from the last acknowledged progress, so nothing is skipped. With nothing to send it waits on the store's commit signal.
/// In cluster mode the loop runs only while this node owns the task (<see cref="RunOwnedAsync"/>, called by its
/// owner lease), skips the versions earlier owners recorded as sent (<see cref="EtlLogProgress"/>) and records its
/// progress per log partition through the cluster topic as well (<see cref="EtlLogProgressWriter"/>). Over 300 lines
/// with those two entry points: they start and stop the same loop over the same recorder, so they stay beside it.
/// </summary>
internal sealed partial class EtlTaskRunner : IAsyncDisposable
{
    public const string ConsumerPrefix = "etl/";

    private readonly DocumentStore _store;
    private readonly EtlMessageBuilder _builder;
    private readonly EtlChangeReader _reader;
    private readonly EtlPublisher _publisher;
    private readonly EtlInFlightWindow _inFlight = new();
    private readonly EtlProgressRecorder _progress;
    private readonly RetryBackoff _backoff = new(TimeSpan.FromSeconds(1), TimeSpan.FromMinutes(1));
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly EtlSendRate _rate;
    private readonly EtlPipelineLimits _limits;
    private readonly CancellationTokenSource _stop = new();
    private readonly EtlCollectionFilter _collections;
    private readonly EtlClusterProgress? _cluster;
    private readonly EtlLogProgressWriter? _log;

    // Cluster mode: held while the loop runs as owner, so moving progress over what others sent never runs beside it.
    private readonly SemaphoreSlim _owned = new(1, 1);

    // Cluster mode: what earlier owners recorded as sent when this node gained the task (the loop's alone).
    private EtlLogProgress? _sent;

    // The batches the loop took acknowledged from the window, cleared for each take (the loop's alone).
    private readonly List<EtlInFlightBatch> _acknowledged = [];
    private Task _loop = Task.CompletedTask;
    private long _messagesSent;
    private volatile string? _lastError;
    private DateTime? _lastErrorTime;
    private volatile EtlTaskState _state = EtlTaskState.Stopped;

    public EtlTaskRunner(
        EtlTaskDefinition definition,
        DocumentStore store,
        EtlErrorLog errors,
        Func<EtlTaskDefinition, IEtlDestination> createDestination,
        ILogger logger,
        TimeProvider time,
        EtlPipelineLimits? limits = null,
        EtlClusterProgress? cluster = null,
        EtlLogProgressWriter? log = null)
    {
        _cluster = cluster;
        _log = log;
        _limits = limits ?? EtlPipelineLimits.Default;
        Definition = definition;
        _store = store;
        Errors = errors;
        _logger = logger;
        _rate = new EtlSendRate(time);
        _time = time;
        EtlScript? script = null;
        if (!string.IsNullOrWhiteSpace(definition.Script) && !EtlScript.TryCompile(definition.Script, definition.Limits, out script, out var error))
        {
            throw new ArgumentException($"The script of ETL task '{definition.Name}' does not compile: {error}", nameof(definition));
        }

        _builder = new EtlMessageBuilder(definition, script);
        _collections = new EtlCollectionFilter(definition);
        _reader = new EtlChangeReader(store, _collections, _limits);
        _publisher = new EtlPublisher(definition, createDestination);
        _progress = new EtlProgressRecorder(store, ConsumerName, log);
    }

    public EtlTaskDefinition Definition { get; }

    public EtlErrorLog Errors { get; }

    public string ConsumerName => ConsumerNameOf(Definition.Name!);

    public static string ConsumerNameOf(string taskName) => ConsumerPrefix + taskName.ToLowerInvariant();

    /// <summary>Registers the consumer (keeping earlier progress) and starts the loop; in cluster mode the owner lease starts it.</summary>
    public async Task StartAsync()
    {
        var recorded = await _progress.RegisterAsync().ConfigureAwait(false);
        if (_cluster is not null)
        {
            _state = EtlTaskState.Standby;
            return;
        }

        _state = EtlTaskState.Running;
        LogStarted(Definition.Name!, recorded, _publisher.Describe);
        _loop = Task.Run(() => RunAsync(_stop.Token));
    }

    public EtlTaskStatus GetStatus()
    {
        var recorded = _progress.RecordedEtag;
        var lastEtag = _store.LastEtag;
        double lagSeconds = 0;
        if (lastEtag > recorded)
        {
            var pending = _store.GetChangesSince(recorded, 1);
            if (pending.Count > 0)
            {
                lagSeconds = Math.Max(0, (_time.GetUtcNow().UtcDateTime - pending[0].LastModified).TotalSeconds);
            }
        }

        return new EtlTaskStatus(
            _state, _publisher.Describe, recorded, lastEtag, Math.Max(0, lastEtag - recorded), lagSeconds,
            Interlocked.Read(ref _messagesSent), Errors.Count, _lastError, _lastErrorTime, _rate.PerSecond());
    }

    /// <summary>
    /// Cluster mode, while this node owns the task: resumes from the local progress and skips what the task's owners
    /// recorded as sent, then runs the loop until <paramref name="lost"/> (the lease went) or disposal.
    /// </summary>
    public async Task RunOwnedAsync(CancellationToken lost)
    {
        await _owned.WaitAsync(lost).ConfigureAwait(false);
        try
        {
            await RunOwnedCoreAsync(lost).ConfigureAwait(false);
        }
        finally
        {
            _owned.Release();
        }
    }

    private async Task RunOwnedCoreAsync(CancellationToken lost)
    {
        var recorded = await _progress.RegisterAsync().ConfigureAwait(false);
        _sent = _cluster!.Get(Definition.Name!);
        _log!.Reset(_sent);
        _state = EtlTaskState.Running;
        LogOwned(Definition.Name!, recorded, _sent.ToList().Count);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token, lost);
        _loop = RunAsync(stop.Token);
        try
        {
            await _loop.ConfigureAwait(false);
        }
        finally
        {
            if (_state != EtlTaskState.Errored)
            {
                _state = EtlTaskState.Standby;
            }

            // The destination's connections are not held while another node sends.
            await _publisher.CloseAsync().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Cluster mode, while another node owns the task: moves the local progress over the changes the owners recorded
    /// as sent, so this node's store lets their tombstones go and a takeover starts from there.
    /// </summary>
    public async Task AdvanceOverSentAsync()
    {
        if (_cluster is null || !await _owned.WaitAsync(0).ConfigureAwait(false))
        {
            return;
        }

        try
        {
            await AdvanceOverSentCoreAsync().ConfigureAwait(false);
        }
        finally
        {
            _owned.Release();
        }
    }

    private async Task AdvanceOverSentCoreAsync()
    {
        var covered = EtlCoveredChanges.LastCoveredEtag(_store, _collections, _progress.RecordedEtag, _cluster!.Get(Definition.Name!));
        if (covered > _progress.RecordedEtag)
        {
            await _progress.AdvanceRecordedAsync(covered).ConfigureAwait(false);
        }
    }

    private async Task RunAsync(CancellationToken stop)
    {
        var readEtag = _progress.AcknowledgedEtag;
        try
        {
            while (!stop.IsCancellationRequested)
            {
                // Room for another batch, unless the broker is that far behind.
                var failure = await TakeAcknowledgedAsync(_inFlight.Count >= _limits.MaxBatchesInFlight, stop).ConfigureAwait(false);
                if (failure is null && _inFlight.Count + _progress.UnrecordedBatches >= _limits.MaxBatchesInFlight)
                {
                    await _progress.RecordAsync(waitForWrite: true).ConfigureAwait(false);
                }

                if (failure is null)
                {
                    var batch = _reader.Read(readEtag, _sent);
                    if (batch.LastEtag > readEtag)
                    {
                        // The span covers preparing and handing over the batch; its acknowledgment arrives later.
                        using var span = Telemetry.EtlTracing.StartBatch(Definition.Name!, batch.Changes.Count, batch.LastEtag);
                        var prepared = _builder.Build(batch.Changes);
                        (var acknowledged, failure) = await _publisher.HandOverAsync(prepared.Messages, stop).ConfigureAwait(false);
                        Telemetry.EtlTracing.Sent(span, prepared.Messages.Count, prepared.Failures.Count);
                        if (failure is null)
                        {
                            _inFlight.Add(new EtlInFlightBatch(batch.LastEtag, prepared, acknowledged, batch.BodyBuffer, batch.Highest));
                            readEtag = batch.LastEtag;
                        }
                    }
                    else if (_inFlight.Count > 0)
                    {
                        failure = await TakeAcknowledgedAsync(waitForHead: true, stop).ConfigureAwait(false);
                    }
                    else
                    {
                        // Caught up: everything acknowledged is recorded before the task sleeps.
                        await _progress.RecordAsync(waitForWrite: true).ConfigureAwait(false);
                        await _store.WaitForChangesAsync(readEtag, stop).ConfigureAwait(false);
                    }
                }

                if (failure is not null)
                {
                    // Whatever was in flight may or may not have arrived: send it all again from the last acknowledged progress.
                    _inFlight.Abandon();
                    await RetryLaterAsync(failure, stop).ConfigureAwait(false);
                    readEtag = _progress.AcknowledgedEtag;
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
        catch (ObjectDisposedException) when (stop.IsCancellationRequested)
        {
            // The store closed during shutdown.
        }
        catch (Exception ex)
        {
            // The store failed (disk full, corruption): the task cannot record progress, so it stops and says why.
            _lastError = $"stopped: {ex.Message}";
            _lastErrorTime = _time.GetUtcNow().UtcDateTime;
            _state = EtlTaskState.Errored;
            LogTaskStopped(ex, Definition.Name!);
        }
        finally
        {
            _inFlight.Abandon();
            if (_state != EtlTaskState.Errored)
            {
                await _progress.RecordBeforeStopAsync().ConfigureAwait(false);
                _state = EtlTaskState.Stopped;
            }
        }
    }

    /// <summary>
    /// Takes the batches at the head of the window that the broker acknowledged in full (first waiting for
    /// the head's acknowledgement when <paramref name="waitForHead"/>): gives their read buffers back, records
    /// their transform failures, then has their progress recorded, one progress write for all of them.
    /// </summary>
    /// <returns>The delivery failure of the head batch, or null.</returns>
    private async Task<Exception?> TakeAcknowledgedAsync(bool waitForHead, CancellationToken stop)
    {
        _acknowledged.Clear();
        var failure = await _inFlight.TakeAcknowledgedAsync(_acknowledged, waitForHead, stop).ConfigureAwait(false);
        if (_acknowledged.Count == 0)
        {
            return failure;
        }

        var messages = 0;
        foreach (var batch in _acknowledged)
        {
            if (batch.BodyBuffer is { } buffer)
            {
                _reader.Reuse(buffer);
            }

            // Before progress passes them, so no failure is lost in a crash.
            Errors.Record(batch.Prepared.Failures, _time.GetUtcNow().UtcDateTime);
            foreach (var transformFailure in batch.Prepared.Failures)
            {
                LogTransformFailed(Definition.Name!, transformFailure.DocumentId, transformFailure.Etag, transformFailure.Error);
            }

            messages += batch.Prepared.Messages.Count;
            if (batch.Highest is { } highest)
            {
                _log!.Acknowledge(highest);
            }
        }

        _progress.Acknowledge(_acknowledged[^1].LastEtag, _acknowledged.Count);
        _acknowledged.Clear();
        await _progress.RecordAsync(waitForWrite: false).ConfigureAwait(false);
        Interlocked.Add(ref _messagesSent, messages);
        _rate.Record(messages);
        if (_state == EtlTaskState.Retrying && failure is null)
        {
            LogRecovered(Definition.Name!);
            _state = EtlTaskState.Running;
            _backoff.Succeeded();
        }

        return failure;
    }

    /// <summary>Reports the failure, closes the destination (a new one connects for the next attempt) and waits out the backoff.</summary>
    private async Task RetryLaterAsync(Exception failure, CancellationToken stop)
    {
        _state = EtlTaskState.Retrying;
        _lastError = failure.Message;
        _lastErrorTime = _time.GetUtcNow().UtcDateTime;
        LogSendFailed(Definition.Name!, _progress.AcknowledgedEtag, _backoff.Delay.TotalSeconds, failure.Message);
        await _publisher.CloseAsync().ConfigureAwait(false);
        await Task.Delay(_backoff.Delay, _time, stop).ConfigureAwait(false);
        _backoff.Failed();
    }

    /// <summary>
    /// Transforms the document's current version again and sends the result; the error is removed
    /// once the broker acknowledged. A document deleted since needs nothing: its delete event goes
    /// out through the feed.
    /// </summary>
    /// <exception cref="ScriptException">The transform still fails; the error is kept with one more attempt.</exception>
    /// <exception cref="EtlDeliveryException">The broker did not acknowledge; the error is kept.</exception>
    public async Task<EtlRetryResponse> RetryAsync(EtlError error, CancellationToken cancellationToken)
    {
        var document = _store.Get(error.DocumentId);
        if (document is null)
        {
            Errors.Remove(error.Id);
            return new EtlRetryResponse(error.Id, error.DocumentId, 0, "the document was deleted since; its delete event is sent with the changes");
        }

        var prepared = _builder.Build([document]);
        if (prepared.Failures.Count > 0)
        {
            var failure = prepared.Failures[0];
            Errors.Record([(error.DocumentId, error.Collection, error.Etag, failure.Error)], _time.GetUtcNow().UtcDateTime);
            throw new ScriptException(failure.Error);
        }

        var acknowledged = await _publisher.SendAsync(prepared.Messages, cancellationToken).ConfigureAwait(false);
        await acknowledged.WaitAsync(cancellationToken).ConfigureAwait(false);
        Interlocked.Add(ref _messagesSent, prepared.Messages.Count);
        Errors.Remove(error.Id);
        return new EtlRetryResponse(error.Id, error.DocumentId, prepared.Messages.Count, prepared.Messages.Count == 0 ? "the transform skipped the document" : "sent");
    }

    /// <summary>Stops the loop (unacknowledged batches are abandoned and sent again next time) and closes the destination.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        await _publisher.CloseAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}' started after etag {Etag}, sending to {Destination}")]
    private partial void LogStarted(string task, long etag, string destination);

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}': this node owns it now; it goes on after etag {Etag}, skipping what its owners sent ({Partitions} log partitions recorded)")]
    private partial void LogOwned(string task, long etag, int partitions);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}': sending failed; everything after etag {Etag} is sent again in {DelaySeconds} s: {Error}")]
    private partial void LogSendFailed(string task, long etag, double delaySeconds, string error);

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}': the destination acknowledges again")]
    private partial void LogRecovered(string task);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}': the transform failed for document '{DocumentId}' at etag {Etag}: {Error}")]
    private partial void LogTransformFailed(string task, string documentId, long etag, string error);

    [LoggerMessage(Level = LogLevel.Error, Message = "ETL task '{Task}' stopped")]
    private partial void LogTaskStopped(Exception exception, string task);
}
