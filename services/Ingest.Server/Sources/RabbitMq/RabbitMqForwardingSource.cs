using Ingest.Server.Batching;
using Ingest.Server.Cluster;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// A RabbitMQ source in cluster mode. A queue hands each message to one consumer, so exactly one node consumes it: the
/// owner of <c>source.&lt;name&gt;</c> (<see cref="OwnerLease"/>). It forwards each delivery into the cluster topic
/// (<see cref="ForwardedAmqpMessage"/>; acks=all) and acknowledges the delivery once the append is acknowledged, and
/// every node (this one too) maps and stores it from there. Appends overlap, up to the prefetch count.
/// </summary>
/// <remarks>
/// At least once: when the lease goes (or the node dies) the consumer stops and the channel closes, so the deliveries
/// not yet acknowledged go back to the queue and the next owner forwards them again. A message forwarded twice is
/// applied twice; with the same message id it maps to the same document, so a put rewrites the same body
/// (idempotent), and a delete deletes again.
/// </remarks>
public sealed partial class RabbitMqForwardingSource : IngestSource
{
    private readonly RabbitMqSourceOptions _options;
    private readonly string[] _queues;
    private readonly ushort _prefetch;
    private readonly TaskOwnership _ownership;
    private readonly IClusterLog _log;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly BatchStatistics _batching = new();
    private OwnerLease? _lease;
    private volatile RabbitMqSession? _session;
    private long _consumed;
    private long _forwarded;
    private int _inFlight;
    private volatile string? _error;

    internal RabbitMqForwardingSource(
        string name, RabbitMqSourceOptions options, TaskOwnership ownership, IClusterLog log, ILoggerFactory loggers, TimeProvider time)
        : base(name, "rabbitmq", (options ?? throw new ArgumentNullException(nameof(options))).ToMappingRules())
    {
        ArgumentNullException.ThrowIfNull(loggers);
        ArgumentException.ThrowIfNullOrWhiteSpace(options.Uri);
        if (options.Queues.Count == 0)
        {
            throw new ArgumentException("A RabbitMQ source needs at least one queue.", nameof(options));
        }

        _options = options;
        _queues = [.. options.Queues];
        _prefetch = (ushort)Math.Clamp((int)options.Prefetch, 1, ushort.MaxValue);
        _ownership = ownership;
        _log = log;
        _logger = loggers.CreateLogger<RabbitMqForwardingSource>();
        _time = time;
        Script = options.CompileScript(name);
    }

    /// <summary>The owner election's task name: <c>source.&lt;name&gt;</c>.</summary>
    public static string LeaseName(string source) => $"source.{source.ToLowerInvariant()}";

    /// <summary>Whether this node owns the source and consumes its queues.</summary>
    public bool IsOwner => _lease?.IsOwner ?? false;

    /// <summary>Deliveries forwarded and acknowledged.</summary>
    public long Forwarded => Interlocked.Read(ref _forwarded);

    public override async Task StartAsync(CancellationToken cancellationToken) =>
        _lease = await _ownership.AcquireAsync(LeaseName(Name), ConsumeWhileOwnedAsync, cancellationToken).ConfigureAwait(false);

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        if (Interlocked.Exchange(ref _lease, null) is { } lease)
        {
            await _ownership.ReleaseAsync(lease).ConfigureAwait(false);
        }
    }

    public override ValueTask DisposeAsync() => new(StopAsync(CancellationToken.None));

    /// <summary>Refused, as for any RabbitMQ source: a queue cannot rewind.</summary>
    public override Task<IReadOnlyList<PartitionReset>> ResetAsync(SourceResetTarget target, CancellationToken cancellationToken) =>
        throw new SourceResetException(
            SourceResetProblem.NotSupported,
            $"The RabbitMQ source '{Name}' cannot be reset: a queue cannot rewind (acknowledged messages are gone from it). "
            + "Publish the messages again, or replay dead letters; only Kafka sources can be reset.");

    public override SourceStatus GetStatus()
    {
        var session = _session;
        var partitions = new PartitionStatus[_queues.Length];
        for (var i = 0; i < _queues.Length; i++)
        {
            partitions[i] = new PartitionStatus(_queues[i], 0, CommittedOffset: null, HighWatermark: null, Lag: null);
        }

        // A standby node is healthy without a connection: the owner consumes.
        var connected = session is null ? _error is null : session.IsConnected;
        return new SourceStatus(Name, Kind, connected, _error ?? session?.Error, Interlocked.Read(ref _consumed), Forwarded, 0, false, partitions, _batching);
    }

    /// <summary>The lease's work: consume and forward until the lease goes, then hand back what is not acknowledged.</summary>
    private async Task ConsumeWhileOwnedAsync(CancellationToken lost)
    {
        RabbitMqSession? session = null;
        session = new RabbitMqSession(Name, _options, _queues, _prefetch, _time, (queue, delivery) => ForwardAsync(session!, queue, delivery, lost), _logger);
        _session = session;
        LogConsuming(Name);
        try
        {
            await session.RunAsync(new TaskCompletionSource(), lost).ConfigureAwait(false);
        }
        finally
        {
            // No more deliveries; appends under way are left to finish (an ack after the channel closed is void and the
            // message comes back: at least once), then the channel closes and the broker requeues the rest.
            session.MarkStopping();
            await session.CancelConsumersAsync(CancellationToken.None).ConfigureAwait(false);
            var waited = 0;
            while (Volatile.Read(ref _inFlight) > 0 && waited++ < 50)
            {
                await Task.Delay(20, CancellationToken.None).ConfigureAwait(false);
            }

            await session.CloseAsync().ConfigureAwait(false);
            _session = null;
            LogStoppedConsuming(Name);
        }
    }

    private Task ForwardAsync(RabbitMqSession session, int queueIndex, BasicDeliverEventArgs delivery, CancellationToken lost)
    {
        var channel = session.Channel;
        var generation = session.Generation;
        Interlocked.Increment(ref _consumed);
        if (session.IsStopping || channel is null)
        {
            return RequeueAsync(channel, delivery.DeliveryTag);
        }

        var record = ForwardedAmqpMessage.Create(Name, _queues[queueIndex], delivery);
        Interlocked.Increment(ref _inFlight);
        _ = AcknowledgeWhenAppendedAsync(session, channel, generation, delivery.DeliveryTag, _log.AppendAsync(record, lost));

        // The handler returns at once: the prefetch count bounds the appends in flight.
        return Task.CompletedTask;
    }

    private async Task AcknowledgeWhenAppendedAsync(RabbitMqSession session, IChannel channel, int generation, ulong tag, Task<ClusterPosition> append)
    {
        try
        {
            await append.ConfigureAwait(false);
            if (session.Generation == generation && channel.IsOpen)
            {
                await channel.BasicAckAsync(tag, multiple: false, CancellationToken.None).ConfigureAwait(false);
                Interlocked.Increment(ref _forwarded);
                _error = null;
            }
        }
        catch (Exception ex) when (ex is not OutOfMemoryException and not AlreadyClosedException)
        {
            // Not in the cluster topic: the broker gets it back, for this owner or the next.
            _error = $"forwarding into the cluster topic failed: {ex.Message}";
            LogForwardFailed(Name, ex.Message);
            if (session.Generation == generation)
            {
                await RequeueAsync(channel, tag).ConfigureAwait(false);
            }
        }
        catch (AlreadyClosedException)
        {
            // The channel is gone: the broker redelivers.
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }

    private async Task RequeueAsync(IChannel? channel, ulong tag)
    {
        if (channel is not { IsOpen: true })
        {
            return;
        }

        try
        {
            await channel.BasicNackAsync(tag, multiple: false, requeue: true, CancellationToken.None).ConfigureAwait(false);
        }
        catch (AlreadyClosedException)
        {
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "RabbitMQ source '{Source}': this node owns it; consuming and forwarding into the cluster topic")]
    private partial void LogConsuming(string source);

    [LoggerMessage(Level = LogLevel.Information, Message = "RabbitMQ source '{Source}': no longer the owner; stopped consuming (unacknowledged messages go back to the queue)")]
    private partial void LogStoppedConsuming(string source);

    [LoggerMessage(Level = LogLevel.Warning, Message = "RabbitMQ source '{Source}': a message could not be forwarded into the cluster topic ({Reason}); it goes back to the queue")]
    private partial void LogForwardFailed(string source, string reason);
}
