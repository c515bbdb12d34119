using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// Each queue's ready-message count, for the status: refreshed every second on a channel of its
/// own (a passive declare of a missing queue closes its channel, which must not be the consuming one).
/// </summary>
internal sealed class RabbitMqLagMonitor
{
    private static readonly TimeSpan LagInterval = TimeSpan.FromSeconds(1);

    private readonly string _source;
    private readonly string[] _queues;
    private readonly RabbitMqSession _session;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly long[] _lag;
    private IChannel? _channel;
    private IConnection? _channelConnection;

    public RabbitMqLagMonitor(string source, string[] queues, RabbitMqSession session, TimeProvider time, ILogger logger)
    {
        _source = source;
        _queues = queues;
        _session = session;
        _time = time;
        _logger = logger;
        _lag = new long[queues.Length];
        Array.Fill(_lag, -1);
    }

    /// <summary>The ready count of queue <paramref name="index"/>; null when unknown.</summary>
    public long? LagOf(int index) => Volatile.Read(ref _lag[index]) is var lag and >= 0 ? lag : null;

    /// <summary>Refreshes the counts every second until <paramref name="stop"/>, then closes its channel.</summary>
    public async Task RunAsync(CancellationToken stop)
    {
        try
        {
            while (await RefreshAfterDelayAsync(stop).ConfigureAwait(false))
            {
            }
        }
        finally
        {
            await RabbitMqSession.CloseQuietlyAsync(_channel, _source, _logger).ConfigureAwait(false);
            _channel = null;
        }
    }

    private async Task<bool> RefreshAfterDelayAsync(CancellationToken stop)
    {
        try
        {
            await Task.Delay(LagInterval, _time, stop).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return false;
        }

        var connection = _session.Connection;
        if (connection is not { IsOpen: true })
        {
            return true;
        }

        try
        {
            var channel = _channel;
            if (channel is not { IsOpen: true } || !ReferenceEquals(_channelConnection, connection))
            {
                await RabbitMqSession.CloseQuietlyAsync(channel, _source, _logger).ConfigureAwait(false);
                _channel = null;
                channel = await connection.CreateChannelAsync(cancellationToken: stop).ConfigureAwait(false);
                _channel = channel;
                _channelConnection = connection;
            }

            for (var i = 0; i < _queues.Length; i++)
            {
                Volatile.Write(ref _lag[i], await channel.MessageCountAsync(_queues[i], stop).ConfigureAwait(false));
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            return false;
        }
        catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or BrokerUnreachableException
            or TimeoutException or OperationCanceledException or IOException)
        {
            Array.Fill(_lag, -1);
        }

        return true;
    }
}
