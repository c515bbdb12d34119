using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// A RabbitMQ source's connection state as the client's events report it: whether it is up, the
/// problem if not, and the channel generation. Every loss of the channel starts a new generation,
/// since delivery tags of a lost channel are void: what it delivered and was not acknowledged is
/// redelivered. Written by the connection loop and the client's event threads, read by status requests.
/// </summary>
/// <param name="source">The source's name.</param>
/// <param name="logger">The source's logger.</param>
/// <param name="describe">A connection failure in words (the source's <see cref="RabbitMqSession.Describe"/>).</param>
internal sealed partial class RabbitMqConnectionState(string source, ILogger logger, Func<Exception, string>? describe = null)
{
    private int _generation;
    private volatile bool _up;
    private volatile string? _error;

    /// <summary>The current channel generation.</summary>
    public int Generation => Volatile.Read(ref _generation);

    /// <summary>Whether the events say the connection is up (the session also checks the channel's own state).</summary>
    public bool IsUp => _up;

    /// <summary>The problem; null while connected.</summary>
    public string? Error => _error;

    /// <summary>A channel is being set up or given up: items stamped before are stale from now on.</summary>
    public int NextGeneration() => Interlocked.Increment(ref _generation);

    /// <summary>Consuming has started on a new channel.</summary>
    public void RecordConnected()
    {
        _up = true;
        _error = null;
    }

    /// <summary>Connecting or setting up the channel failed; the loop retries.</summary>
    public void RecordConnectFailed(string error)
    {
        _up = false;
        _error = error;
        NextGeneration();
    }

    /// <summary>The session closed the connection itself.</summary>
    public void RecordClosed() => _up = false;

    public void OnConnectionShutdown(ShutdownEventArgs e)
    {
        if (e.Initiator == ShutdownInitiator.Application)
        {
            return;
        }

        NextGeneration();
        _up = false;
        _error = $"connection lost ({e.ReplyCode} {e.ReplyText}); reconnecting";
        LogConnectionLost(logger, source, e.ReplyCode, e.ReplyText);
    }

    public void OnRecoverySucceeded()
    {
        _up = true;
        _error = null;
        LogRecovered(logger, source);
    }

    public void OnRecoveryError(Exception exception)
    {
        _up = false;
        _error = $"reconnecting failed: {(describe is null ? exception.Message : describe(exception))}";
        LogRecoveryFailed(logger, source, _error);
    }

    /// <summary>
    /// The consuming channel closed. True when the broker closed it while the connection stayed
    /// up, which automatic recovery does not repair: the session must start over. A connection
    /// failure closes the channel too, and recovery repairs that one.
    /// </summary>
    public bool OnChannelShutdown(ShutdownEventArgs e, bool stopping, bool connectionOpen)
    {
        if (e.Initiator == ShutdownInitiator.Application || stopping || !connectionOpen)
        {
            return false;
        }

        _up = false;
        _error = $"channel closed by the broker ({e.ReplyCode} {e.ReplyText}); reconnecting";
        LogChannelLost(logger, source, e.ReplyCode, e.ReplyText);
        return true;
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': connection lost ({Code} {Reason}); recovering, unacknowledged messages will be redelivered")]
    private static partial void LogConnectionLost(ILogger logger, string source, ushort code, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': channel closed by the broker ({Code} {Reason}); reconnecting")]
    private static partial void LogChannelLost(ILogger logger, string source, ushort code, string reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Source '{Source}': connection recovered, consuming again")]
    private static partial void LogRecovered(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': {Error}")]
    private static partial void LogRecoveryFailed(ILogger logger, string source, string error);
}
