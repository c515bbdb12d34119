using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// Consumes RabbitMQ queues on one channel with manual acknowledgements. Each delivery is mapped
/// and handed to the <see cref="BatchWriter"/>; once its batch is durable the source acknowledges
/// the batch's highest delivery tag with multiple=true. When the store is behind, the delivery
/// handler waits, and the prefetch limit stops the broker from sending more. Delivery is at least
/// once: a message whose ack was lost is redelivered and written again, which for puts and
/// deletes by id changes nothing.
/// </summary>
/// <remarks>
/// The parts, each with one job: <see cref="SourcePipeline"/> (mapping, counting, the writer),
/// <see cref="RabbitMqSession"/> (connection, channel, consumers, recovery),
/// <see cref="RabbitMqDeliveryHandler"/> (each delivery into the pipeline; flow control),
/// <see cref="RabbitMqAcknowledger"/> (acks and requeues), <see cref="RabbitMqLagMonitor"/>.
/// docs/message-lifecycle.md follows one message through them.
/// </remarks>
public sealed partial class RabbitMqSource : IngestSource, ISourcePositions, IBatchAcknowledger
{
    private static readonly TimeSpan HandlerTimeout = TimeSpan.FromSeconds(5);

    private readonly string[] _queues;
    private readonly ushort _prefetch;
    private readonly ILogger _logger;
    private readonly SourcePipeline _pipeline;
    private readonly RabbitMqSession _session;
    private readonly RabbitMqAcknowledger _acknowledger;
    private readonly RabbitMqDeliveryHandler _deliveries;
    private readonly RabbitMqLagMonitor _lag;
    private readonly CancellationTokenSource _loops = new();
    private readonly CancellationTokenSource _abortAdds = new();
    private Task _connectLoop = Task.CompletedTask;
    private Task _lagLoop = Task.CompletedTask;

    // 0 or 1, set once with Interlocked: Start, Stop and Dispose may race (host shutdown during start-up).
    private int _started;
    private int _stopped;
    private int _disposed;

    public RabbitMqSource(
        string name, RabbitMqSourceOptions options, DocumentStore store, BatchingOptions batching, ILoggerFactory loggers, TimeProvider time)
        : base(name, "rabbitmq", (options ?? throw new ArgumentNullException(nameof(options))).ToMappingRules())
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(batching);
        ArgumentNullException.ThrowIfNull(loggers);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentException.ThrowIfNullOrWhiteSpace(options.Uri);
        if (options.Queues.Count == 0)
        {
            throw new ArgumentException("A RabbitMQ source needs at least one queue.", nameof(options));
        }

        _queues = [.. options.Queues];
        var origins = new string[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            origins[i] = SourceOrigin.Of(name, _queues[i]);
        }

        // A batch can only fill if the broker may send at least a batch ahead of the acks.
        _prefetch = (ushort)Math.Clamp(Math.Max(options.Prefetch, batching.MaxMessages), 1, ushort.MaxValue);
        _logger = loggers.CreateLogger<RabbitMqSource>();
        Script = options.CompileScript(name);
        _pipeline = new SourcePipeline(name, Kind, Rules, Script, store, batching, this, this, loggers, time);
        _session = new RabbitMqSession(name, options, _queues, _prefetch, time, (queue, delivery) => _deliveries!.OnReceivedAsync(queue, delivery), _logger);
        _acknowledger = new RabbitMqAcknowledger(name, _session, _logger);
        _deliveries = new RabbitMqDeliveryHandler(_queues, origins, _pipeline, _session, _acknowledger, _abortAdds.Token);
        _lag = new RabbitMqLagMonitor(name, _queues, _session, time, _logger);
    }

    /// <summary>The prefetch count the channel uses.</summary>
    public ushort Prefetch => _prefetch;

    /// <summary>Messages acknowledged to the broker (counted once the ack is sent).</summary>
    internal long Acknowledged => _acknowledger.Acknowledged;

    public override async Task StartAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException($"Source '{Name}' was already started.");
        }

        var firstAttempt = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _connectLoop = Task.Run(() => _session.RunAsync(firstAttempt, _loops.Token), CancellationToken.None);
        _lagLoop = Task.Run(() => _lag.RunAsync(_loops.Token), CancellationToken.None);

        // Returns once consuming has started, or once the first attempt failed: then the loop
        // keeps retrying in the background and the status shows why.
        await firstAttempt.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        if (Volatile.Read(ref _disposed) != 0 || Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }

        _session.MarkStopping();
        using var abort = cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), _abortAdds);
        await StopLoopsAsync().ConfigureAwait(false);

        // No more deliveries: cancel the consumers, then wait for the delivery being handled.
        await _session.CancelConsumersAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await _deliveries.WaitIdleAsync(cancellationToken).ConfigureAwait(false);

            // Everything consumed becomes durable and acknowledged while the channel is still open.
            await _pipeline.Writer.DrainAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            LogStopCancelled(_logger, Name);
        }
        catch (InvalidOperationException ex)
        {
            LogStopFailed(_logger, Name, ex);
        }
        finally
        {
            await _session.CloseAsync().ConfigureAwait(false);
        }

        await _pipeline.Writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Refused: a queue hands each message out until it is acknowledged, then forgets it; there is nothing to rewind to.</summary>
    public override Task<IReadOnlyList<PartitionReset>> ResetAsync(SourceResetTarget target, CancellationToken cancellationToken) =>
        throw new SourceResetException(
            SourceResetProblem.NotSupported,
            $"The RabbitMQ source '{Name}' cannot be reset: a queue cannot rewind (acknowledged messages are gone from it). "
            + "Publish the messages again, or replay dead letters; only Kafka sources can be reset.");

    public override SourceStatus GetStatus()
    {
        var partitions = new PartitionStatus[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            partitions[i] = new PartitionStatus(_queues[i], 0, CommittedOffset: null, HighWatermark: null, _lag.LagOf(i));
        }

        return _pipeline.Status(Name, _session.IsConnected, _session.Error, _deliveries.IsWaiting, partitions);
    }

    public override async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _session.MarkStopping();
        await _abortAdds.CancelAsync().ConfigureAwait(false);
        await StopLoopsAsync().ConfigureAwait(false);
        await _session.CloseAsync().ConfigureAwait(false);
        await _pipeline.DisposeAsync().ConfigureAwait(false);
        _loops.Dispose();

        // A delivery handler may still be finishing (its add was aborted above); it reads
        // _abortAdds and releases its gate. Dispose them only once it is out; with the session
        // closed, none can follow. If it does not come out, leave them undisposed.
        if (await _deliveries.TryCloseAsync(HandlerTimeout).ConfigureAwait(false))
        {
            _abortAdds.Dispose();
        }
        else
        {
            LogHandlerStuck(_logger, Name);
        }
    }

    /// <inheritdoc/>
    /// <remarks>Items from a channel generation that has since been lost are dropped: the broker redelivers them.</remarks>
    public bool IsCurrent(in IngestItem item) => item.Position.Epoch == _session.Generation;

    /// <inheritdoc/>
    /// <remarks>
    /// Nothing: a queue has no replayable position. Delivery tags count per channel and start
    /// again after every reconnect, so storing them would suggest a resume point that does not exist.
    /// </remarks>
    public void AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items)
    {
    }

    /// <inheritdoc/>
    public ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(batch);
        return _acknowledger.AcknowledgeAsync(batch, cancellationToken);
    }

    private async Task StopLoopsAsync()
    {
        await _loops.CancelAsync().ConfigureAwait(false);
        await _connectLoop.ConfigureAwait(false);
        await _lagLoop.ConfigureAwait(false);
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': stop gave up before everything consumed was durable; unacknowledged messages will be redelivered")]
    private static partial void LogStopCancelled(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': the batch writer stopped before everything consumed was durable; unacknowledged messages will be redelivered")]
    private static partial void LogStopFailed(ILogger logger, string source, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': a delivery handler did not finish while disposing; it is left to finish on its own")]
    private static partial void LogHandlerStuck(ILogger logger, string source);
}
