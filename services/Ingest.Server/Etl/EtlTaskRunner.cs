using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// One ETL task's loop: reads the changes feed after the last acknowledged etag in batches bounded
/// by bytes and time, builds the messages, publishes them and waits for the broker's
/// acknowledgement of all of them, records the documents whose transform failed, and only then
/// records progress (the store's consumer <c>etl/{name}</c>, which also keeps tombstones until the
/// task has sent them). A failed send is retried with exponential backoff, the same batch again, so
/// nothing is skipped; after a crash the unacknowledged tail is sent again (at-least-once, with the
/// CloudEvents id to de-duplicate). With nothing to send it waits on the store's commit signal.
/// </summary>
internal sealed partial class EtlTaskRunner : IAsyncDisposable
{
    public const string ConsumerPrefix = "etl/";
    // Bounds what a crash makes the task send again, and how long before progress is first recorded.
    private const long MaxBatchBytes = 4L * 1024 * 1024;

    // What a message costs beyond its body: the CloudEvents headers, key and framing.
    private const int MessageOverheadBytes = 256;
    private static readonly TimeSpan MaxBatchReadTime = TimeSpan.FromMilliseconds(500);
    private static readonly TimeSpan FirstRetryDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromMinutes(1);

    private readonly DocumentStore _store;
    private readonly Func<EtlTaskDefinition, IEtlDestination> _createDestination;
    private readonly EtlMessageBuilder _builder;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly EtlSendRate _rate;
    private readonly SemaphoreSlim _sendGate = new(1, 1);
    private readonly CancellationTokenSource _stop = new();
    private IEtlDestination? _destination;
    private Task _loop = Task.CompletedTask;
    private long _lastSentEtag;
    private long _messagesSent;
    private volatile string? _lastError;
    private DateTime? _lastErrorTime;
    private volatile EtlTaskState _state = EtlTaskState.Stopped;

    public EtlTaskRunner(
        EtlTaskDefinition definition, DocumentStore store, EtlErrorLog errors, Func<EtlTaskDefinition, IEtlDestination> createDestination, ILogger logger, TimeProvider time)
    {
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
        try
        {
            while (!stop.IsCancellationRequested)
            {
                var batch = ReadBatch(Interlocked.Read(ref _lastSentEtag));
                if (batch.LastEtag <= Interlocked.Read(ref _lastSentEtag))
                {
                    await _store.WaitForChangesAsync(batch.LastEtag, stop).ConfigureAwait(false);
                    continue;
                }

                using var span = Telemetry.EtlTracing.StartBatch(Definition.Name!, batch.Changes.Count, batch.LastEtag);
                var prepared = _builder.Build(batch.Changes);
                await SendWithRetriesAsync(prepared.Messages, stop).ConfigureAwait(false);
                Telemetry.EtlTracing.Sent(span, prepared.Messages.Count, prepared.Failures.Count);
                Errors.Record(prepared.Failures, _time.GetUtcNow().UtcDateTime);
                foreach (var failure in prepared.Failures)
                {
                    LogTransformFailed(Definition.Name!, failure.DocumentId, failure.Etag, failure.Error);
                }

                await _store.ReportProgressAsync(ConsumerName, batch.LastEtag).ConfigureAwait(false);
                Interlocked.Exchange(ref _lastSentEtag, batch.LastEtag);
                Interlocked.Add(ref _messagesSent, prepared.Messages.Count);
                _rate.Record(prepared.Messages.Count);
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
            if (_state != EtlTaskState.Errored)
            {
                _state = EtlTaskState.Stopped;
            }
        }
    }

    /// <summary>Changes after <paramref name="afterEtag"/> until <see cref="MaxBatchBytes"/> of bodies or <see cref="MaxBatchReadTime"/>; no count limit.</summary>
    private EtlBatch ReadBatch(long afterEtag)
    {
        var changes = new List<Document>();
        var last = afterEtag;
        long bytes = 0;
        var started = Stopwatch.GetTimestamp();
        using var reader = _store.BeginRead();
        foreach (var change in reader.GetChangesSince(afterEtag))
        {
            if (Definition.Includes(change.Collection))
            {
                changes.Add(change.ToDocument());
                bytes += change.Body.Length + MessageOverheadBytes;
            }

            last = change.Etag;
            if (bytes >= MaxBatchBytes || Stopwatch.GetElapsedTime(started) >= MaxBatchReadTime)
            {
                break;
            }
        }

        return new EtlBatch(changes, last);
    }

    private async Task SendWithRetriesAsync(IReadOnlyList<EtlMessage> messages, CancellationToken stop)
    {
        var delay = FirstRetryDelay;
        while (true)
        {
            try
            {
                await SendAsync(messages, stop).ConfigureAwait(false);
                if (_state == EtlTaskState.Retrying)
                {
                    LogRecovered(Definition.Name!);
                }

                _state = EtlTaskState.Running;
                return;
            }
            catch (Exception ex) when (!stop.IsCancellationRequested && ex is not OutOfMemoryException)
            {
                _state = EtlTaskState.Retrying;
                _lastError = ex.Message;
                _lastErrorTime = _time.GetUtcNow().UtcDateTime;
                LogSendFailed(Definition.Name!, messages.Count, delay.TotalSeconds, ex.Message);
                await DropDestinationAsync().ConfigureAwait(false);
                await Task.Delay(delay, _time, stop).ConfigureAwait(false);
                delay = TimeSpan.FromTicks(Math.Min(delay.Ticks * 2, MaxRetryDelay.Ticks));
            }
        }
    }

    private async Task SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        await _sendGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            _destination ??= _createDestination(Definition);
            await _destination.PublishAsync(messages, cancellationToken).ConfigureAwait(false);
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

        await SendAsync(prepared.Messages, cancellationToken).ConfigureAwait(false);
        Interlocked.Add(ref _messagesSent, prepared.Messages.Count);
        Errors.Remove(error.Id);
        return new EtlRetryResponse(error.Id, error.DocumentId, prepared.Messages.Count, prepared.Messages.Count == 0 ? "the transform skipped the document" : "sent");
    }

    public static string DescribeDestination(EtlTaskDefinition definition) => definition.Kafka is { } kafka
        ? $"kafka topic '{kafka.Topic}' at {kafka.BootstrapServers}"
        : $"rabbitmq exchange '{definition.RabbitMq?.Exchange}' at {Brokers.RabbitMqEndpoint.Redact(definition.RabbitMq?.Uri ?? string.Empty)}";

    /// <summary>Stops the loop (an unacknowledged batch is abandoned and sent again next time) and closes the destination.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        await DropDestinationAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}' started after etag {Etag}, sending to {Destination}")]
    private partial void LogStarted(string task, long etag, string destination);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task {Task}: sending {Count} messages failed; retrying in {DelaySeconds} s: {Error}")]
    private partial void LogSendFailed(string task, int count, double delaySeconds, string error);

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task {Task}: the destination acknowledges again")]
    private partial void LogRecovered(string task);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task {Task}: the transform failed for document '{DocumentId}' at etag {Etag}: {Error}")]
    private partial void LogTransformFailed(string task, string documentId, long etag, string error);

    [LoggerMessage(Level = LogLevel.Error, Message = "ETL task {Task} stopped")]
    private partial void LogTaskStopped(Exception exception, string task);
}
