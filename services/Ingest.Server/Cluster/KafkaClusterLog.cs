using System.Buffers;
using System.Text;
using Confluent.Kafka;
using Ingest.Documents.Ids;
using Ingest.Server.Brokers;

namespace Ingest.Server.Cluster;

/// <summary>
/// The cluster topic as this node writes it: one idempotent producer (<c>acks=all</c>, client id <c>ingest-&lt;node&gt;</c>)
/// keyed by the record's key folded as the store folds ids, so one document's writes, whatever their case, land in one
/// partition in order. Produce waits at most <see cref="ClusterOptions.ApplyTimeout"/> for Kafka
/// (<c>message.timeout.ms</c>), so with Kafka down a write fails with a clear reason instead of hanging.
/// </summary>
internal sealed partial class KafkaClusterLog : IClusterLog, IDisposable
{
    private readonly ClusterOptions _options;
    private readonly ClusterAppliedPositions _applied;
    private readonly ILogger<KafkaClusterLog> _logger;
    private readonly Lazy<IProducer<byte[], byte[]>> _producer;
    private readonly byte[] _node;

    public KafkaClusterLog(ClusterOptions options, ClusterAppliedPositions applied, ILogger<KafkaClusterLog> logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        _applied = applied;
        _logger = logger;
        _node = Encoding.UTF8.GetBytes(options.Node!);
        _producer = new Lazy<IProducer<byte[], byte[]>>(BuildProducer, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    /// <summary>This node's name as the <see cref="ClusterHeaders.Node"/> header carries it.</summary>
    public string Node => _options.Node!;

    /// <summary>Partitions of the cluster topic (known once the topic is checked at start).</summary>
    public int PartitionCount => _applied.PartitionCount;

    public async Task<ClusterPosition> AppendAsync(ClusterRecord record, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        var headers = new Headers
        {
            { ClusterHeaders.Kind, Encoding.UTF8.GetBytes(record.Kind) },
            { ClusterHeaders.Key, Encoding.UTF8.GetBytes(record.Key) },
            { ClusterHeaders.Node, _node },
        };
        foreach (var (name, value) in record.Headers)
        {
            headers.Add(name, value);
        }

        var message = new Message<byte[], byte[]> { Key = FoldKey(record.Key), Value = record.Body.ToArray(), Headers = headers };
        try
        {
            var delivered = await _producer.Value.ProduceAsync(_options.Topic, message, cancellationToken).ConfigureAwait(false);
            return new ClusterPosition(delivered.Partition.Value, delivered.Offset.Value);
        }
        catch (ProduceException<byte[], byte[]> ex)
        {
            var reason = KafkaClientError.Describe(ex.Error.Code, ex.Error.Reason, _options.Settings);
            LogProduceFailed(_logger, _options.Topic, reason);
            var outcome = ex.DeliveryResult?.Status == PersistenceStatus.NotPersisted
                ? "nothing was written"
                : "Kafka did not confirm it, so it may still be applied";
            throw new ClusterUnavailableException(
                $"The write could not be added to the cluster topic '{_options.Topic}' at {_options.BootstrapServers} ({reason}); {outcome}. "
                + "Check that Kafka is reachable from this node, then retry.",
                ex);
        }
        catch (KafkaException ex)
        {
            var reason = KafkaClientError.Describe(ex.Error.Code, ex.Error.Reason, _options.Settings);
            throw new ClusterUnavailableException(
                $"The write could not be added to the cluster topic '{_options.Topic}' at {_options.BootstrapServers} ({reason}); nothing was written.", ex);
        }
    }

    public Task WaitAppliedAsync(ClusterPosition position, CancellationToken cancellationToken)
    {
        var partitions = _applied.PartitionCount;
        if ((uint)position.Partition >= (uint)partitions)
        {
            throw new ArgumentOutOfRangeException(
                nameof(position), position, $"The cluster topic '{_options.Topic}' has {partitions} partitions (0 to {partitions - 1}); there is no partition {position.Partition}.");
        }

        return _applied.WaitAsync(position, _options.ApplyTimeout, cancellationToken);
    }

    /// <summary>Sends what is queued (at most <paramref name="timeout"/>) before the node stops.</summary>
    public void Flush(TimeSpan timeout)
    {
        if (_producer.IsValueCreated)
        {
            _producer.Value.Flush(timeout);
        }
    }

    public void Dispose()
    {
        if (_producer.IsValueCreated)
        {
            _producer.Value.Dispose();
        }
    }

    private static byte[] FoldKey(string key)
    {
        var rented = ArrayPool<byte>.Shared.Rent(IdKey.MaxKeyBytes(key.Length));
        try
        {
            var length = IdKey.Fold(key, rented);
            return rented.AsSpan(0, length).ToArray();
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    private IProducer<byte[], byte[]> BuildProducer()
    {
        var config = new ProducerConfig
        {
            // Small batches: an HTTP write waits for its own record, so lingering only adds latency.
            LingerMs = 1,
        };
        KafkaClientSettings.Apply(config, _options.BootstrapServers!, _options.Settings);
        config.EnableIdempotence = true;
        config.Acks = Acks.All;
        config.ClientId = "ingest-" + _options.Node;
        config.MessageTimeoutMs = (int)Math.Clamp(_options.ApplyTimeout.TotalMilliseconds, 1_000, int.MaxValue);
        return new ProducerBuilder<byte[], byte[]>(config)
            .SetErrorHandler((_, error) => LogClientError(_logger, error.Code, KafkaClientError.Describe(error.Code, error.Reason, _options.Settings)))
            .Build();
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster: producing to '{Topic}' failed: {Reason}")]
    private static partial void LogProduceFailed(ILogger logger, string topic, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster producer: client error {Code}: {Reason}")]
    private static partial void LogClientError(ILogger logger, ErrorCode code, string reason);
}
