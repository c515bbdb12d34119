using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// One ETL task's loop: reads the changes feed after the last etag read in batches bounded by bytes
/// and time, builds the messages and hands them to the broker client, then reads the next batch while
/// the broker acknowledges the earlier ones (at most <see cref="EtlPipelineLimits.MaxBatchesInFlight"/>
/// unacknowledged or not yet recorded). Progress (the store's consumer <c>etl/{name}</c>, which also keeps
/// tombstones until the task has sent them) only moves over batches acknowledged in full, in feed order:
/// never past an unacknowledged message, so after a crash at most the unrecorded tail is sent again
/// (at-least-once, with the CloudEvents id to de-duplicate). It is recorded one durable write at a time
/// while the loop goes on sending. The documents whose transform failed are
/// recorded with their batch. A failed delivery abandons every batch in flight and, after a backoff,
/// reads again from the last recorded progress, so nothing is skipped. With nothing to send it waits
/// on the store's commit signal.
/// </summary>
internal sealed partial class EtlTaskRunner : IAsyncDisposable
{
    public const string ConsumerPrefix = "etl/";

    // What a message costs beyond its body: the CloudEvents headers, key and framing.
    private const int MessageOverheadBytes = 256;

    // Reading a change takes well under a microsecond: the clock is read once per this many, not per change.
    private const int ClockCheckInterval = 64;
    private static readonly TimeSpan FirstRetryDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromMinutes(1);

    private readonly DocumentStore _store;
    private readonly Func<EtlTaskDefinition, IEtlDestination> _createDestination;
    private readonly EtlMessageBuilder _builder;
    private readonly EtlCollectionFilter _collections;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly EtlSendRate _rate;
    private readonly EtlPipelineLimits _limits;
    private readonly SemaphoreSlim _sendGate = new(1, 1);
    private readonly CancellationTokenSource _stop = new();

    // Read buffers of acknowledged batches, for the next batches' bodies (the loop's alone).
    private readonly Stack<byte[]> _bodyBuffers = new();
    private IEtlDestination? _destination;
    private Task _loop = Task.CompletedTask;
    private long _lastSentEtag;

    // Progress the broker acknowledged (the loop's own) and the last the loop asked the store to record;
    // _lastSentEtag follows once the store made that durable. The batches acknowledged but not yet
    // asked to be recorded, and those the write under way records, count against the batches in
    // flight: a crash sends them again too.
    private long _acknowledgedEtag;
    private long _requestedEtag;
    private Task _progressWrite = Task.CompletedTask;
    private int _batchesUnrecorded;
    private int _batchesBeingRecorded;
    private long _messagesSent;
    private volatile string? _lastError;
    private DateTime? _lastErrorTime;
    private volatile EtlTaskState _state = EtlTaskState.Stopped;
    private TimeSpan _retryDelay = FirstRetryDelay;

    public EtlTaskRunner(
        EtlTaskDefinition definition,
        DocumentStore store,
        EtlErrorLog errors,
        Func<EtlTaskDefinition, IEtlDestination> createDestination,
        ILogger logger,
        TimeProvider time,
        EtlPipelineLimits? limits = null)
    {
        _limits = limits ?? EtlPipelineLimits.Default;
        Definition = definition;
        _store = store;
        Errors = errors;
        _createDestination = createDestination;
        _logger = logger;
        _time = time;
        _rate = new EtlSendRate(time);
        EtlScript? script = null;
        if (!string.IsNullOrWhiteSpace(definition.Script) && !EtlScript.TryCompile(definition.Script, definition.Limits, out script, out var error))
        {
            throw new ArgumentException($"The script of ETL task '{definition.Name}' does not compile: {error}", nameof(definition));
        }

        _builder = new EtlMessageBuilder(definition, script);
        _collections = new EtlCollectionFilter(definition);
    }

    public EtlTaskDefinition Definition { get; }

    public EtlErrorLog Errors { get; }

    public string ConsumerName => ConsumerNameOf(Definition.Name!);

    public static string ConsumerNameOf(string taskName) => ConsumerPrefix + taskName.ToLowerInvariant();

    /// <summary>Registers the consumer (keeping earlier progress) and starts the loop.</summary>
    public async Task StartAsync()
    {
        _lastSentEtag = await _store.RegisterConsumerAsync(ConsumerName).ConfigureAwait(false);
        _state = EtlTaskState.Running;
        LogStarted(Definition.Name!, _lastSentEtag, DescribeDestination(Definition));
        _loop = Task.Run(() => RunAsync(_stop.Token));
    }

    public EtlTaskStatus GetStatus()
    {
        var lastSent = Interlocked.Read(ref _lastSentEtag);
        var lastEtag = _store.LastEtag;
        double lagSeconds = 0;
        if (lastEtag > lastSent)
        {
            var pending = _store.GetChangesSince(lastSent, 1);
            if (pending.Count > 0)
            {
                lagSeconds = Math.Max(0, (_time.GetUtcNow().UtcDateTime - pending[0].LastModified).TotalSeconds);
            }
        }

        return new EtlTaskStatus(
            _state, _destination?.Describe ?? DescribeDestination(Definition), lastSent, lastEtag, Math.Max(0, lastEtag - lastSent), lagSeconds,
            Interlocked.Read(ref _messagesSent), Errors.Count, _lastError, _lastErrorTime, _rate.PerSecond());
    }

    private async Task RunAsync(CancellationToken stop)
    {
        var inFlight = new Queue<EtlInFlightBatch>();
        var readEtag = Interlocked.Read(ref _lastSentEtag);
        _acknowledgedEtag = _requestedEtag = readEtag;
        try
        {
            while (!stop.IsCancellationRequested)
            {
                // Room for another batch, unless the broker is that far behind.
                var failure = await CommitAcknowledgedAsync(inFlight, inFlight.Count >= _limits.MaxBatchesInFlight, stop).ConfigureAwait(false);
                if (failure is null && inFlight.Count + UnrecordedBatches >= _limits.MaxBatchesInFlight)
                {
                    await StoreProgressAsync(waitForWrite: true).ConfigureAwait(false);
                }

                if (failure is null)
                {
                    var batch = ReadBatch(readEtag);
                    if (batch.LastEtag > readEtag)
                    {
                        // The span covers preparing and handing over the batch; its acknowledgment arrives later.
                        using var span = Telemetry.EtlTracing.StartBatch(Definition.Name!, batch.Changes.Count, batch.LastEtag);
                        var prepared = _builder.Build(batch.Changes);
                        (var acknowledged, failure) = await HandOverAsync(prepared.Messages, stop).ConfigureAwait(false);
                        Telemetry.EtlTracing.Sent(span, prepared.Messages.Count, prepared.Failures.Count);
                        if (failure is null)
                        {
                            inFlight.Enqueue(new EtlInFlightBatch(batch.LastEtag, prepared, acknowledged, batch.BodyBuffer));
                            readEtag = batch.LastEtag;
                        }
                    }
                    else if (inFlight.Count > 0)
                    {
                        failure = await CommitAcknowledgedAsync(inFlight, waitForHead: true, stop).ConfigureAwait(false);
                    }
                    else
                    {
                        // Caught up: everything acknowledged is recorded before the task sleeps.
                        await StoreProgressAsync(waitForWrite: true).ConfigureAwait(false);
                        await _store.WaitForChangesAsync(readEtag, stop).ConfigureAwait(false);
                    }
                }

                if (failure is not null)
                {
                    // Whatever was in flight may or may not have arrived: send it all again from the last recorded progress.
                    Abandon(inFlight);
                    await RetryLaterAsync(failure, stop).ConfigureAwait(false);
                    readEtag = _acknowledgedEtag;
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
            Abandon(inFlight);
            if (_state != EtlTaskState.Errored)
            {
                await RecordLastProgressAsync().ConfigureAwait(false);
                _state = EtlTaskState.Stopped;
            }
        }
    }

    /// <summary>
    /// Records progress over the batches at the head of the queue that the broker acknowledged in
    /// full (first waiting for the head's acknowledgement when <paramref name="waitForHead"/>), with
    /// their transform failures: one progress write for all of them. Stops at the first batch still
    /// unacknowledged, so progress never passes a message the broker has not acknowledged.
    /// </summary>
    /// <returns>The delivery failure of the head batch, or null.</returns>
    private async Task<Exception?> CommitAcknowledgedAsync(Queue<EtlInFlightBatch> inFlight, bool waitForHead, CancellationToken stop)
    {
        EtlInFlightBatch? last = null;
        var messages = 0;
        Exception? failure = null;
        while (inFlight.TryPeek(out var head) && (head.Acknowledged.IsCompleted || (waitForHead && last is null)))
        {
            try
            {
                await head.Acknowledged.WaitAsync(stop).ConfigureAwait(false);
            }
            catch (Exception ex) when (!stop.IsCancellationRequested && ex is not OutOfMemoryException)
            {
                failure = ex;
                break;
            }

            inFlight.Dequeue();
            if (head.BodyBuffer is { } buffer)
            {
                // Acknowledged in full: neither the broker client nor anyone else reads its bodies any more.
                _bodyBuffers.Push(buffer);
            }

            Errors.Record(head.Prepared.Failures, _time.GetUtcNow().UtcDateTime);
            foreach (var transformFailure in head.Prepared.Failures)
            {
                LogTransformFailed(Definition.Name!, transformFailure.DocumentId, transformFailure.Etag, transformFailure.Error);
            }

            messages += head.Prepared.Messages.Count;
            _batchesUnrecorded++;
            last = head;
        }

        if (last is not null)
        {
            _acknowledgedEtag = last.LastEtag;
            await StoreProgressAsync(waitForWrite: false).ConfigureAwait(false);
            Interlocked.Add(ref _messagesSent, messages);
            _rate.Record(messages);
            if (_state == EtlTaskState.Retrying && failure is null)
            {
                LogRecovered(Definition.Name!);
                _state = EtlTaskState.Running;
                _retryDelay = FirstRetryDelay;
            }
        }

        return failure;
    }

    /// <summary>
    /// Has the store record the acknowledged progress, one write at a time and off the loop's path:
    /// a durable write takes milliseconds (a journal sync), in which the loop hands over the next
    /// batches, and the acknowledgements that arrive meanwhile go into the next write together. Without
    /// <paramref name="waitForWrite"/> it returns at once when a write is still being made; with it, it
    /// returns once everything acknowledged so far is recorded. A failed write (the store is broken)
    /// throws here, which stops the task.
    /// </summary>
    private async Task StoreProgressAsync(bool waitForWrite)
    {
        if (!_progressWrite.IsCompleted && !waitForWrite)
        {
            return;
        }

        await _progressWrite.ConfigureAwait(false);
        _batchesBeingRecorded = 0;
        if (_acknowledgedEtag > _requestedEtag)
        {
            _requestedEtag = _acknowledgedEtag;
            _batchesBeingRecorded = _batchesUnrecorded;
            _batchesUnrecorded = 0;
            _progressWrite = WriteProgressAsync(_requestedEtag);
            if (waitForWrite)
            {
                await _progressWrite.ConfigureAwait(false);
            }
        }
    }

    private int UnrecordedBatches => _batchesUnrecorded + (_progressWrite.IsCompleted ? 0 : _batchesBeingRecorded);

    private async Task WriteProgressAsync(long etag)
    {
        await _store.ReportProgressAsync(ConsumerName, etag).ConfigureAwait(false);
        Interlocked.Exchange(ref _lastSentEtag, etag);
    }

    /// <summary>As the loop ends: records what was acknowledged, so a restart does not send it again (unless the store is closing too).</summary>
    private async Task RecordLastProgressAsync()
    {
        try
        {
            await StoreProgressAsync(waitForWrite: true).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // The store closed first or failed: the unrecorded tail is sent again after a restart (at-least-once).
        }
    }

    /// <summary>
    /// Changes after <paramref name="afterEtag"/> until <see cref="EtlPipelineLimits.MaxBatchBytes"/> of messages or
    /// <see cref="EtlPipelineLimits.MaxBatchReadTime"/>; no count limit. The bodies are copied out of the store
    /// into one read buffer, reused from batch to batch (a body that does not fit gets an array of its own), rather
    /// than into an array per document.
    /// </summary>
    private EtlBatch ReadBatch(long afterEtag)
    {
        var changes = new List<Document>();
        var last = afterEtag;
        long bytes = 0;
        var read = 0;
        var buffer = _bodyBuffers.TryPop(out var reused) ? reused : null;
        var used = 0;
        var started = Stopwatch.GetTimestamp();
        using var reader = _store.BeginRead();
        foreach (var change in reader.GetChangesSince(afterEtag))
        {
            if (_collections.Includes(change.CollectionUtf8, out var collection))
            {
                var body = change.Body;
                ReadOnlyMemory<byte> copy;
                if (body.IsEmpty)
                {
                    copy = ReadOnlyMemory<byte>.Empty;
                }
                else
                {
                    buffer ??= GC.AllocateUninitializedArray<byte>(BodyBufferBytes);
                    if (body.Length <= buffer.Length - used)
                    {
                        body.CopyTo(buffer.AsSpan(used));
                        copy = new ReadOnlyMemory<byte>(buffer, used, body.Length);
                        used += body.Length;
                    }
                    else
                    {
                        copy = body.ToArray();
                    }
                }

                changes.Add(new Document(change.Id, collection, change.Etag, change.LastModified, change.Flags, copy));
                bytes += body.Length + MessageOverheadBytes;
            }

            last = change.Etag;
            if (bytes >= _limits.MaxBatchBytes || (++read % ClockCheckInterval == 0 && Stopwatch.GetElapsedTime(started) >= _limits.MaxBatchReadTime))
            {
                break;
            }
        }

        if (buffer is not null && used == 0)
        {
            _bodyBuffers.Push(buffer);
            buffer = null;
        }

        return new EtlBatch(changes, last, buffer);
    }

    // A batch ends at MaxBatchBytes of messages, bodies included: one buffer that size holds all but its last bodies.
    private int BodyBufferBytes => (int)Math.Min(_limits.MaxBatchBytes, Array.MaxLength);

    /// <summary>Hands a batch to the destination (connecting first if needed).</summary>
    /// <returns>The task of the broker's acknowledgement, or the failure to hand it over.</returns>
    private async Task<(Task Acknowledged, Exception? Failure)> HandOverAsync(IReadOnlyList<EtlMessage> messages, CancellationToken stop)
    {
        try
        {
            return (await SendAsync(messages, stop).ConfigureAwait(false), null);
        }
        catch (Exception ex) when (!stop.IsCancellationRequested && ex is not OutOfMemoryException)
        {
            return (Task.CompletedTask, ex);
        }
    }

    /// <summary>Reports the failure, closes the destination (a new one connects for the next attempt) and waits out the backoff.</summary>
    private async Task RetryLaterAsync(Exception failure, CancellationToken stop)
    {
        _state = EtlTaskState.Retrying;
        _lastError = failure.Message;
        _lastErrorTime = _time.GetUtcNow().UtcDateTime;
        LogSendFailed(Definition.Name!, _acknowledgedEtag, _retryDelay.TotalSeconds, failure.Message);
        await DropDestinationAsync().ConfigureAwait(false);
        await Task.Delay(_retryDelay, _time, stop).ConfigureAwait(false);
        _retryDelay = TimeSpan.FromTicks(Math.Min(_retryDelay.Ticks * 2, MaxRetryDelay.Ticks));
    }

    /// <summary>Forgets the batches in flight; their acknowledgements may still fault, which nobody awaits any more.</summary>
    private static void Abandon(Queue<EtlInFlightBatch> inFlight)
    {
        foreach (var batch in inFlight)
        {
            _ = batch.Acknowledged.ContinueWith(
                static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        inFlight.Clear();
    }

    /// <summary>Hands the messages to the destination, one caller at a time so batches keep their order.</summary>
    /// <returns>The task of the broker's acknowledgement of them all.</returns>
    private async Task<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        await _sendGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            _destination ??= _createDestination(Definition);
            return await _destination.SendAsync(messages, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _sendGate.Release();
        }
    }

    private async Task DropDestinationAsync()
    {
        await _sendGate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_destination is { } destination)
            {
                _destination = null;
                await destination.DisposeAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            _sendGate.Release();
        }
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

        var acknowledged = await SendAsync(prepared.Messages, cancellationToken).ConfigureAwait(false);
        await acknowledged.WaitAsync(cancellationToken).ConfigureAwait(false);
        Interlocked.Add(ref _messagesSent, prepared.Messages.Count);
        Errors.Remove(error.Id);
        return new EtlRetryResponse(error.Id, error.DocumentId, prepared.Messages.Count, prepared.Messages.Count == 0 ? "the transform skipped the document" : "sent");
    }

    public static string DescribeDestination(EtlTaskDefinition definition) => definition.Kafka is { } kafka
        ? $"kafka topic '{kafka.Topic}' at {kafka.BootstrapServers}"
        : $"rabbitmq exchange '{definition.RabbitMq?.Exchange}' at {Brokers.RabbitMqEndpoint.Redact(definition.RabbitMq?.Uri ?? string.Empty)}";

    /// <summary>Stops the loop (unacknowledged batches are abandoned and sent again next time) and closes the destination.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        await DropDestinationAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}' started after etag {Etag}, sending to {Destination}")]
    private partial void LogStarted(string task, long etag, string destination);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}': sending failed; everything after etag {Etag} is sent again in {DelaySeconds} s: {Error}")]
    private partial void LogSendFailed(string task, long etag, double delaySeconds, string error);

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}': the destination acknowledges again")]
    private partial void LogRecovered(string task);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}': the transform failed for document '{DocumentId}' at etag {Etag}: {Error}")]
    private partial void LogTransformFailed(string task, string documentId, long etag, string error);

    [LoggerMessage(Level = LogLevel.Error, Message = "ETL task '{Task}' stopped")]
    private partial void LogTaskStopped(Exception exception, string task);
}
