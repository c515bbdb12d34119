using Ingest.Server.Brokers;
using Ingest.Server.Hosting;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// A RabbitMQ source's connection and consuming channel, and their recovery: connects with
/// automatic recovery, declares the queues if asked, starts one consumer per queue, and follows
/// the client's shutdown and recovery events. A channel the broker closes while the connection
/// stays up (which automatic recovery does not repair) makes it start over on a new connection.
/// Every loss bumps <see cref="Generation"/>: delivery tags of a lost channel are void.
/// </summary>
internal sealed partial class RabbitMqSession
{
    private static readonly TimeSpan FirstRetryDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan CloseTimeout = TimeSpan.FromSeconds(5);

    private readonly string _source;
    private readonly RabbitMqSourceOptions _options;
    private readonly string[] _queues;
    private readonly ushort _prefetch;
    private readonly TimeProvider _time;
    private readonly Func<int, BasicDeliverEventArgs, Task> _onDelivery;
    private readonly ILogger _logger;
    private readonly Lock _sessionLock = new();
    private IConnection? _connection;
    private IChannel? _channel;
    private string[] _consumerTags = [];
    private TaskCompletionSource _broken = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly RabbitMqConnectionState _state;
    private volatile bool _stopping;

    /// <param name="source">The source's name.</param>
    /// <param name="options">Where to connect.</param>
    /// <param name="queues">The queues, in the order <paramref name="onDelivery"/> gets their index.</param>
    /// <param name="prefetch">The channel's prefetch count.</param>
    /// <param name="time">For retry delays.</param>
    /// <param name="onDelivery">Called for each delivery with its queue's index; the client dispatches one at a time per channel.</param>
    /// <param name="logger">The source's logger.</param>
    public RabbitMqSession(
        string source, RabbitMqSourceOptions options, string[] queues, ushort prefetch, TimeProvider time,
        Func<int, BasicDeliverEventArgs, Task> onDelivery, ILogger logger)
    {
        _source = source;
        _options = options;
        _queues = queues;
        _prefetch = prefetch;
        _time = time;
        _onDelivery = onDelivery;
        _logger = logger;
        _state = new RabbitMqConnectionState(source, logger, Describe);
    }

    /// <summary>The current channel generation; items stamped with an older one are stale.</summary>
    public int Generation => _state.Generation;

    /// <summary>The consuming channel, while there is one.</summary>
    public IChannel? Channel => Volatile.Read(ref _channel);

    /// <summary>The connection, while there is one.</summary>
    public IConnection? Connection => Volatile.Read(ref _connection);

    /// <summary>
    /// Connected: the flag follows the client's shutdown and recovery events, and the channel's
    /// and connection's own state catch what they miss.
    /// </summary>
    public bool IsConnected => _state.IsUp && Channel is { IsOpen: true } && Connection is { IsOpen: true };

    /// <summary>The connection's problem; null while connected.</summary>
    public string? Error => _state.Error;

    /// <summary>Whether the source is stopping: deliveries are handed back, channel closes expected.</summary>
    public bool IsStopping => _stopping;

    public void MarkStopping() => _stopping = true;

    /// <summary>Connects and reconnects until <paramref name="stop"/>; <paramref name="firstAttempt"/> completes after the first try, successful or not.</summary>
    public async Task RunAsync(TaskCompletionSource firstAttempt, CancellationToken stop)
    {
        var backoff = new RetryBackoff(FirstRetryDelay, MaxRetryDelay);
        while (!stop.IsCancellationRequested)
        {
            try
            {
                var broken = await ConnectAsync(stop).ConfigureAwait(false);
                firstAttempt.TrySetResult();
                backoff.Succeeded();
                await broken.WaitAsync(stop).ConfigureAwait(false);

                // The channel was closed by the broker while the connection stayed up (which
                // automatic recovery does not repair): start over with a new connection.
                _state.NextGeneration();
                await CloseAsync().ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                break;
            }
            catch (Exception ex)
            {
                var error = Describe(ex);
                _state.RecordConnectFailed(error);
                LogConnectFailed(_logger, _source, RabbitMqEndpoint.Redact(_options.Uri!), backoff.Delay, error);
                await CloseAsync().ConfigureAwait(false);
                firstAttempt.TrySetResult();
                try
                {
                    await Task.Delay(backoff.Delay, _time, stop).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    break;
                }

                backoff.Failed();
            }
        }

        firstAttempt.TrySetResult();
    }

    /// <summary>Connects, sets up the channel and consumers; returns a task that completes if the channel breaks for good.</summary>
    private async Task<Task> ConnectAsync(CancellationToken cancellationToken)
    {
        var factory = RabbitMqEndpoint.CreateFactory(_options.Uri!, _options.Tls, $"ingest:{_source}", automaticRecovery: true);

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
            await RabbitMqConsumers.DeclareAsync(channel, _queues, cancellationToken).ConfigureAwait(false);
        }

        var generation = _state.NextGeneration();
        _consumerTags = await RabbitMqConsumers.StartAsync(channel, _queues, _onDelivery, cancellationToken).ConfigureAwait(false);
        _state.RecordConnected();
        LogConnected(_logger, _source, RabbitMqEndpoint.Redact(_options.Uri!), _queues.Length, _prefetch, generation);
        return broken.Task;
    }

    private Task OnConnectionShutdownAsync(object sender, ShutdownEventArgs e)
    {
        _state.OnConnectionShutdown(e);
        return Task.CompletedTask;
    }

    private Task OnRecoverySucceededAsync(object sender, AsyncEventArgs e)
    {
        _state.OnRecoverySucceeded();
        return Task.CompletedTask;
    }

    private Task OnRecoveryErrorAsync(object sender, ConnectionRecoveryErrorEventArgs e)
    {
        _state.OnRecoveryError(e.Exception);
        return Task.CompletedTask;
    }

    private Task OnChannelShutdownAsync(object sender, ShutdownEventArgs e)
    {
        TaskCompletionSource broken;
        IConnection? connection;
        lock (_sessionLock)
        {
            broken = _broken;
            connection = _connection;
        }

        if (_state.OnChannelShutdown(e, _stopping, connection is { IsOpen: true }))
        {
            broken.TrySetResult();
        }

        return Task.CompletedTask;
    }

    /// <summary>Cancels the consumers: no more deliveries.</summary>
    public async Task CancelConsumersAsync(CancellationToken cancellationToken)
    {
        var channel = _channel;
        if (channel is not { IsOpen: true })
        {
            return;
        }

        foreach (var tag in _consumerTags)
        {
            if (await RabbitMqConsumers.TryCancelAsync(channel, tag, cancellationToken).ConfigureAwait(false) is { } failure)
            {
                LogCancelFailed(_logger, _source, tag, failure);
            }
        }
    }

    /// <summary>Closes the channel and the connection; the next <see cref="RunAsync"/> round opens new ones.</summary>
    public async Task CloseAsync()
    {
        IConnection? connection;
        IChannel? channel;
        lock (_sessionLock)
        {
            connection = _connection;
            channel = _channel;
            _connection = null;
            _channel = null;
        }

        _consumerTags = [];
        _state.RecordClosed();
        if (channel is not null)
        {
            channel.ChannelShutdownAsync -= OnChannelShutdownAsync;
        }

        await CloseQuietlyAsync(channel, _source, _logger).ConfigureAwait(false);
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
            LogCloseFailed(_logger, _source, ex.Message);
        }

        await connection.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>Closes a channel, logging rather than throwing what closing a broken one throws.</summary>
    internal static async Task CloseQuietlyAsync(IChannel? channel, string source, ILogger logger)
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
            LogCloseFailed(logger, source, ex.Message);
        }

        await channel.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>A connection failure as /health and the log show it (authentication and TLS failures name the setting to fix).</summary>
    internal string Describe(Exception ex) => RabbitMqEndpoint.DescribeFailure(ex, _options.Uri!, _options.Tls);

    [LoggerMessage(Level = LogLevel.Information, Message = "Source '{Source}': consuming {Queues} queue(s) from {Uri} with prefetch {Prefetch} (channel generation {Generation})")]
    private static partial void LogConnected(ILogger logger, string source, string uri, int queues, ushort prefetch, int generation);

    [LoggerMessage(Level = LogLevel.Error, Message = "Source '{Source}': could not start consuming from {Uri}; retrying in {Delay}: {Error}")]
    private static partial void LogConnectFailed(ILogger logger, string source, string uri, TimeSpan delay, string error);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': cancelling consumer {Tag} failed: {Reason}")]
    private static partial void LogCancelFailed(ILogger logger, string source, string tag, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Source '{Source}': closing the connection: {Reason}")]
    private static partial void LogCloseFailed(ILogger logger, string source, string reason);
}
