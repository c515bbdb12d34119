using Ingest.Contracts.Mapping;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Batching;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// Consumes RabbitMQ queues on one channel with manual acknowledgements. Each delivery is mapped
/// and handed to the <see cref="BatchWriter"/>; once its batch is durable the source acknowledges
/// the batch's highest delivery tag with multiple=true. When the store is behind, the delivery
/// handler waits in <see cref="BatchWriter.AddAsync"/>, and the prefetch limit stops the broker
/// from sending more. Delivery is at least once: a message whose ack was lost is redelivered and
/// written again, which for puts and deletes by id changes nothing.
/// </summary>
public sealed partial class RabbitMqSource : IngestSource, IBatchAcknowledger
{
    private static readonly TimeSpan FirstRetryDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan LagInterval = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan CloseTimeout = TimeSpan.FromSeconds(5);

    private readonly RabbitMqSourceOptions _options;
    private readonly string[] _queues;
    private readonly string[] _origins;
    private readonly long[] _lag;
    private readonly ushort _prefetch;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly BatchWriter _writer;
    private readonly CancellationTokenSource _loops = new();
    private readonly CancellationTokenSource _abortAdds = new();

    // Deliveries are dispatched one at a time per channel; Stop takes this gate to wait out the one in progress.
    private readonly SemaphoreSlim _handlerGate = new(1, 1);
    private readonly Lock _sessionLock = new();

    private IConnection? _connection;
    private IChannel? _channel;
    private IChannel? _statusChannel;
    private IConnection? _statusChannelConnection;
    private string[] _consumerTags = [];
    private TaskCompletionSource _broken = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Task _connectLoop = Task.CompletedTask;
    private Task _lagLoop = Task.CompletedTask;
    private int _generation;
    private long _consumed;
    private long _acknowledged;
    private int _waiting;
    private volatile bool _connected;
    private volatile bool _stopping;
    private volatile string? _error;
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

        _options = options;
        _queues = [.. options.Queues];
        _origins = new string[_queues.Length];
        _lag = new long[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            _origins[i] = SourceOrigin.Of(name, _queues[i]);
            _lag[i] = -1;
        }

        // A batch can only fill if the broker may send at least a batch ahead of the acks.
        _prefetch = (ushort)Math.Clamp(Math.Max(options.Prefetch, batching.MaxMessages), 1, ushort.MaxValue);
        _time = time;
        _logger = loggers.CreateLogger<RabbitMqSource>();
        _writer = new BatchWriter(name, store, batching, this, loggers.CreateLogger<BatchWriter>(), time);
    }

    /// <summary>The prefetch count the channel uses.</summary>
    public ushort Prefetch => _prefetch;

    /// <summary>Messages acknowledged to the broker (counted once the ack is sent).</summary>
    internal long Acknowledged => Volatile.Read(ref _acknowledged);

    public override async Task StartAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException($"Source '{Name}' was already started.");
        }

        var firstAttempt = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _connectLoop = Task.Run(() => RunConnectionAsync(firstAttempt, _loops.Token), CancellationToken.None);
        _lagLoop = Task.Run(() => RunLagAsync(_loops.Token), CancellationToken.None);

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

        _stopping = true;
        using var abort = cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), _abortAdds);
        await StopLoopsAsync().ConfigureAwait(false);

        // No more deliveries: cancel the consumers, then wait for the delivery being handled.
        await CancelConsumersAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await _handlerGate.WaitAsync(cancellationToken).ConfigureAwait(false);
            _handlerGate.Release();

            // Everything consumed becomes durable and acknowledged while the channel is still open.
            await _writer.DrainAsync(cancellationToken).ConfigureAwait(false);
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
            await CloseSessionAsync().ConfigureAwait(false);
        }

        await _writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    public override SourceStatus GetStatus()
    {
        var partitions = new PartitionStatus[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            var lag = Volatile.Read(ref _lag[i]);
            partitions[i] = new PartitionStatus(_queues[i], 0, CommittedOffset: null, HighWatermark: null, lag >= 0 ? lag : null);
        }

        return new SourceStatus(
            Name,
            Kind,
            IsConnected(),
            _error ?? _writer.LastError,
            Volatile.Read(ref _consumed),
            _writer.Written,
            _writer.DeadLetters,
            Volatile.Read(ref _waiting) > 0,
            partitions,
            _writer.Statistics);
    }

    // The flag follows the client's shutdown and recovery events; the channel's own state catches what they miss.
    private bool IsConnected() => _connected && _channel is { IsOpen: true } && _connection is { IsOpen: true };

    public override async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _stopping = true;
        await _abortAdds.CancelAsync().ConfigureAwait(false);
        await StopLoopsAsync().ConfigureAwait(false);
        await CloseSessionAsync().ConfigureAwait(false);
        await _writer.DisposeAsync().ConfigureAwait(false);
        _loops.Dispose();

        // A delivery handler may still be finishing (its add was aborted above); it reads
        // _abortAdds and releases the gate. Dispose both only once it is out, and the session
        // being closed, none can follow. If it does not come out, leave them undisposed.
        if (await _handlerGate.WaitAsync(CloseTimeout).ConfigureAwait(false))
        {
            _handlerGate.Dispose();
            _abortAdds.Dispose();
        }
        else
        {
            LogHandlerStuck(_logger, Name);
        }
    }

    /// <inheritdoc/>
    /// <remarks>Items from a channel generation that has since been lost are dropped: the broker redelivers them.</remarks>
    public bool IsCurrent(in IngestItem item) => item.Epoch == Volatile.Read(ref _generation);

    /// <inheritdoc/>
    /// <remarks>
    /// Nothing: a queue has no replayable position. Delivery tags count per channel and start
    /// again after every reconnect, so storing them would suggest a resume point that does not exist.
    /// </remarks>
    public void AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items)
    {
    }

    /// <inheritdoc/>
    public async ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var generation = Volatile.Read(ref _generation);
        var tag = DeliveryTags.HighestCurrent(batch.Items, generation);
        var channel = _channel;
        if (tag == 0 || channel is not { IsOpen: true })
        {
            // Nothing current, or the channel is gone: its unacknowledged messages are redelivered.
            return;
        }

        try
        {
            var items = batch.Items;
            var acknowledged = 0;
            for (var i = 0; i < items.Length; i++)
            {
                acknowledged += items[i].Epoch == generation ? 1 : 0;
            }

            // Counted before sending, so the count never trails what the broker has processed.
            Interlocked.Add(ref _acknowledged, acknowledged);
            await channel.BasicAckAsync(tag, multiple: true, cancellationToken).ConfigureAwait(false);
        }
        catch (AlreadyClosedException ex)
        {
            LogAckLost(_logger, Name, ex.Message);
        }
    }

    private async Task RunConnectionAsync(TaskCompletionSource firstAttempt, CancellationToken stop)
    {
        var delay = FirstRetryDelay;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                var broken = await ConnectAsync(stop).ConfigureAwait(false);
                firstAttempt.TrySetResult();
                delay = FirstRetryDelay;
                await broken.WaitAsync(stop).ConfigureAwait(false);

                // The channel was closed by the broker while the connection stayed up (which
                // automatic recovery does not repair): start over with a new connection.
                Interlocked.Increment(ref _generation);
                await CloseSessionAsync().ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                break;
            }
            catch (Exception ex)
            {
                _connected = false;
                _error = Describe(ex);
                LogConnectFailed(_logger, Name, RabbitMqSourceOptions.Redact(_options.Uri!), delay, _error);
                Interlocked.Increment(ref _generation);
                await CloseSessionAsync().ConfigureAwait(false);
                firstAttempt.TrySetResult();
                try
                {
                    await Task.Delay(delay, _time, stop).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    break;
                }

                delay = TimeSpan.FromTicks(Math.Min(delay.Ticks * 2, MaxRetryDelay.Ticks));
            }
        }

        firstAttempt.TrySetResult();
    }

    /// <summary>Connects, sets up the channel and consumers; returns a task that completes if the channel breaks for good.</summary>
    private async Task<Task> ConnectAsync(CancellationToken cancellationToken)
    {
        var uri = new Uri(_options.Uri!);
        var factory = new ConnectionFactory
        {
            Uri = uri,
            AutomaticRecoveryEnabled = true,
            TopologyRecoveryEnabled = true,
            NetworkRecoveryInterval = TimeSpan.FromSeconds(2),
            ClientProvidedName = $"ingest:{Name}@{Environment.MachineName}",
        };
        if (uri.Scheme == "amqps")
        {
            factory.Ssl = new SslOption(uri.Host) { Enabled = true };
        }

        var broken = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var connection = await factory.CreateConnectionAsync(cancellationToken).ConfigureAwait(false);
        lock (_sessionLock)
        {
            _connection = connection;
            _broken = broken;
        }

        connection.ConnectionShutdownAsync += OnConnectionShutdownAsync;
        connection.RecoverySucceededAsync += OnRecoverySucceededAsync;
        connection.ConnectionRecoveryErrorAsync += OnRecoveryErrorAsync;

        var channel = await connection.CreateChannelAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
        lock (_sessionLock)
        {
            _channel = channel;
        }

        channel.ChannelShutdownAsync += OnChannelShutdownAsync;
        await channel.BasicQosAsync(0, _prefetch, global: false, cancellationToken).ConfigureAwait(false);
        if (_options.DeclareQueues)
        {
            foreach (var queue in _queues)
            {
                await DeclareAsync(channel, queue, cancellationToken).ConfigureAwait(false);
            }
        }

        var generation = Interlocked.Increment(ref _generation);
        var tags = new string[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            var index = i;
            var consumer = new AsyncEventingBasicConsumer(channel);
            consumer.ReceivedAsync += (_, delivery) => OnReceivedAsync(index, delivery);
            try
            {
                tags[i] = await channel.BasicConsumeAsync(_queues[i], autoAck: false, consumer, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationInterruptedException ex) when (ex.ShutdownReason?.ReplyCode == Constants.NotFound)
            {
                throw new InvalidOperationException(
                    $"RabbitMQ queue '{_queues[i]}' does not exist (and {nameof(RabbitMqSourceOptions.DeclareQueues)} is off): {ex.ShutdownReason.ReplyText}", ex);
            }
        }

        _consumerTags = tags;
        _connected = true;
        _error = null;
        LogConnected(_logger, Name, RabbitMqSourceOptions.Redact(_options.Uri!), _queues.Length, _prefetch, generation);
        return broken.Task;
    }

    private static async Task DeclareAsync(IChannel channel, string queue, CancellationToken cancellationToken)
    {
        try
        {
            await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false, arguments: null, cancellationToken: cancellationToken)
                .ConfigureAwait(false);
        }
        catch (OperationInterruptedException ex) when (ex.ShutdownReason?.ReplyCode == Constants.PreconditionFailed)
        {
            throw new InvalidOperationException(
                $"RabbitMQ queue '{queue}' exists with other settings than the source declares (durable, not exclusive, not auto-delete, " +
                $"no arguments): {ex.ShutdownReason.ReplyText}. Set {nameof(RabbitMqSourceOptions.DeclareQueues)}=false to consume it as it is.", ex);
        }
    }

    private async Task OnReceivedAsync(int queueIndex, BasicDeliverEventArgs delivery)
    {
        await _handlerGate.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            var channel = _channel;
            if (_stopping)
            {
                // Stopping after the consumers were cancelled: leave it for the broker to redeliver.
                await RequeueAsync(channel, delivery.DeliveryTag).ConfigureAwait(false);
                return;
            }

            Interlocked.Increment(ref _consumed);
            var item = ToItem(queueIndex, delivery, Volatile.Read(ref _generation));
            try
            {
                var pending = _writer.AddAsync(item, _abortAdds.Token);
                if (!pending.IsCompletedSuccessfully)
                {
                    // The store is behind: waiting here holds the channel's dispatch, and the
                    // prefetch limit keeps the broker from sending more meanwhile.
                    Interlocked.Increment(ref _waiting);
                    try
                    {
                        await pending.ConfigureAwait(false);
                    }
                    finally
                    {
                        Interlocked.Decrement(ref _waiting);
                    }
                }
            }
            catch (Exception ex) when (ex is OperationCanceledException or InvalidOperationException or ObjectDisposedException)
            {
                // Not added, so it must not be covered by a later multiple ack: hand it back now.
                item.ReturnRented();

                await RequeueAsync(channel, delivery.DeliveryTag).ConfigureAwait(false);
            }
        }
        finally
        {
            _handlerGate.Release();
        }
    }

    private IngestItem ToItem(int queueIndex, BasicDeliverEventArgs delivery, int generation)
    {
        var properties = delivery.BasicProperties;
        var headers = properties.Headers is { } table ? new DictionaryMessageHeaders(table) : null;
        var message = IncomingMessage.FromAmqp(_queues[queueIndex], properties.MessageId, delivery.Body.Span, headers);
        var position = new ItemPosition(_origins[queueIndex], 0, (long)delivery.DeliveryTag, generation);
        var item = IngestItemMapper.Map(message, Rules, new AmqpEnvelopeHeaders(properties.Headers), ownedBody: default, position);
        if (item.Kind == IngestItemKind.DeadLetter)
        {
            LogDeadLetter(_logger, Name, _queues[queueIndex], item.DeadLetterReason!);
        }

        return item;
    }

    private async Task RequeueAsync(IChannel? channel, ulong deliveryTag)
    {
        if (channel is not { IsOpen: true })
        {
            return;
        }

        try
        {
            await channel.BasicNackAsync(deliveryTag, multiple: false, requeue: true, CancellationToken.None).ConfigureAwait(false);
        }
        catch (AlreadyClosedException ex)
        {
            LogAckLost(_logger, Name, ex.Message);
        }
    }

    private async Task RunLagAsync(CancellationToken stop)
    {
        while (true)
        {
            try
            {
                await Task.Delay(LagInterval, _time, stop).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            var connection = _connection;
            if (connection is not { IsOpen: true })
            {
                continue;
            }

            try
            {
                // A separate channel: a passive declare of a missing queue closes its channel.
                var channel = _statusChannel;
                if (channel is not { IsOpen: true } || !ReferenceEquals(_statusChannelConnection, connection))
                {
                    await CloseQuietlyAsync(channel).ConfigureAwait(false);
                    channel = await connection.CreateChannelAsync(cancellationToken: stop).ConfigureAwait(false);
                    lock (_sessionLock)
                    {
                        _statusChannel = channel;
                        _statusChannelConnection = connection;
                    }
                }

                for (var i = 0; i < _queues.Length; i++)
                {
                    Volatile.Write(ref _lag[i], await channel.MessageCountAsync(_queues[i], stop).ConfigureAwait(false));
                }
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or BrokerUnreachableException
                or TimeoutException or OperationCanceledException or IOException)
            {
                for (var i = 0; i < _lag.Length; i++)
                {
                    Volatile.Write(ref _lag[i], -1);
                }
            }
        }
    }

    private Task OnConnectionShutdownAsync(object sender, ShutdownEventArgs e)
    {
        if (e.Initiator == ShutdownInitiator.Application)
        {
            return Task.CompletedTask;
        }

        // Delivery tags of the lost channel are void; what it delivered and we did not ack is redelivered.
        Interlocked.Increment(ref _generation);
        _connected = false;
        _error = $"connection lost ({e.ReplyCode} {e.ReplyText}); reconnecting";
        LogConnectionLost(_logger, Name, e.ReplyCode, e.ReplyText);
        return Task.CompletedTask;
    }

    private Task OnRecoverySucceededAsync(object sender, AsyncEventArgs e)
    {
        _connected = true;
        _error = null;
        LogRecovered(_logger, Name);
        return Task.CompletedTask;
    }

    private Task OnRecoveryErrorAsync(object sender, ConnectionRecoveryErrorEventArgs e)
    {
        _connected = false;
        _error = $"reconnecting failed: {Describe(e.Exception)}";
        LogRecoveryFailed(_logger, Name, _error);
        return Task.CompletedTask;
    }

    private Task OnChannelShutdownAsync(object sender, ShutdownEventArgs e)
    {
        if (e.Initiator == ShutdownInitiator.Application || _stopping)
        {
            return Task.CompletedTask;
        }

        TaskCompletionSource broken;
        IConnection? connection;
        lock (_sessionLock)
        {
            broken = _broken;
            connection = _connection;
        }

        // A connection failure closes the channel too; automatic recovery repairs that one.
        if (connection is { IsOpen: true })
        {
            _connected = false;
            _error = $"channel closed by the broker ({e.ReplyCode} {e.ReplyText}); reconnecting";
            LogChannelLost(_logger, Name, e.ReplyCode, e.ReplyText);
            broken.TrySetResult();
        }

        return Task.CompletedTask;
    }

    private async Task CancelConsumersAsync(CancellationToken cancellationToken)
    {
        var channel = _channel;
        if (channel is not { IsOpen: true })
        {
            return;
        }

        foreach (var tag in _consumerTags)
        {
            try
            {
                await channel.BasicCancelAsync(tag, noWait: false, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or TimeoutException or OperationCanceledException)
            {
                LogCancelFailed(_logger, Name, tag, ex.Message);
            }
        }
    }

    private async Task StopLoopsAsync()
    {
        await _loops.CancelAsync().ConfigureAwait(false);
        await _connectLoop.ConfigureAwait(false);
        await _lagLoop.ConfigureAwait(false);
    }

    private async Task CloseSessionAsync()
    {
        IConnection? connection;
        IChannel? channel, statusChannel;
        lock (_sessionLock)
        {
            connection = _connection;
            channel = _channel;
            statusChannel = _statusChannel;
            _connection = null;
            _channel = null;
            _statusChannel = null;
            _statusChannelConnection = null;
        }

        _consumerTags = [];
        _connected = false;
        if (channel is not null)
        {
            channel.ChannelShutdownAsync -= OnChannelShutdownAsync;
        }

        await CloseQuietlyAsync(channel).ConfigureAwait(false);
        await CloseQuietlyAsync(statusChannel).ConfigureAwait(false);
        if (connection is null)
        {
            return;
        }

        connection.ConnectionShutdownAsync -= OnConnectionShutdownAsync;
        connection.RecoverySucceededAsync -= OnRecoverySucceededAsync;
        connection.ConnectionRecoveryErrorAsync -= OnRecoveryErrorAsync;
        try
        {
            await connection.CloseAsync(Constants.ReplySuccess, "ingest source stopping", CloseTimeout, abort: true).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or IOException or TimeoutException or OperationCanceledException)
        {
            LogCloseFailed(_logger, Name, ex.Message);
        }

        await connection.DisposeAsync().ConfigureAwait(false);
    }

    private async Task CloseQuietlyAsync(IChannel? channel)
    {
        if (channel is null)
        {
            return;
        }

        try
        {
            if (channel.IsOpen)
            {
                await channel.CloseAsync().ConfigureAwait(false);
            }
        }
        catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or IOException or TimeoutException or OperationCanceledException)
        {
            LogCloseFailed(_logger, Name, ex.Message);
        }

        await channel.DisposeAsync().ConfigureAwait(false);
    }

    private static string Describe(Exception ex) => ex switch
    {
        BrokerUnreachableException { InnerException: { } inner } => $"broker unreachable: {inner.Message}",
        OperationInterruptedException { ShutdownReason: { } reason } => $"{reason.ReplyCode} {reason.ReplyText}",
        _ => ex.Message,
    };

    [LoggerMessage(Level = LogLevel.Information, Message = "Source '{Source}': consuming {Queues} queue(s) from {Uri} with prefetch {Prefetch} (channel generation {Generation})")]
    private static partial void LogConnected(ILogger logger, string source, string uri, int queues, ushort prefetch, int generation);

    [LoggerMessage(Level = LogLevel.Error, Message = "Source '{Source}': could not start consuming from {Uri}; retrying in {Delay}: {Error}")]
    private static partial void LogConnectFailed(ILogger logger, string source, string uri, TimeSpan delay, string error);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': connection lost ({Code} {Reason}); recovering, unacknowledged messages will be redelivered")]
    private static partial void LogConnectionLost(ILogger logger, string source, ushort code, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': channel closed by the broker ({Code} {Reason}); reconnecting")]
    private static partial void LogChannelLost(ILogger logger, string source, ushort code, string reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Source '{Source}': connection recovered, consuming again")]
    private static partial void LogRecovered(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': {Error}")]
    private static partial void LogRecoveryFailed(ILogger logger, string source, string error);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': an acknowledgement could not be sent ({Reason}); the broker will redeliver")]
    private static partial void LogAckLost(ILogger logger, string source, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': a delivery handler did not finish while disposing; it is left to finish on its own")]
    private static partial void LogHandlerStuck(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Source '{Source}': a message from queue '{Queue}' is a dead letter: {Reason}")]
    private static partial void LogDeadLetter(ILogger logger, string source, string queue, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': cancelling consumer {Tag} failed: {Reason}")]
    private static partial void LogCancelFailed(ILogger logger, string source, string tag, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Source '{Source}': closing the connection: {Reason}")]
    private static partial void LogCloseFailed(ILogger logger, string source, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': stop gave up before everything consumed was durable; unacknowledged messages will be redelivered")]
    private static partial void LogStopCancelled(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': the batch writer stopped before everything consumed was durable; unacknowledged messages will be redelivered")]
    private static partial void LogStopFailed(ILogger logger, string source, Exception exception);
}
