using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Brokers;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Cluster;

/// <summary>
/// Applies the cluster topic to this node's store: every partition, in order, effectively once. It is consumed as an
/// internal Kafka source is (the same consume loop, flow control, rebalance handling and batch writer, group
/// <c>&lt;cluster topic&gt;.&lt;node&gt;</c>), so each batch commits the topic's next offsets in the same transaction as its
/// writes and every start resumes from the store. What differs is the mapping (<see cref="ClusterRecordApplier"/>)
/// and the acknowledgement: each durable batch advances <see cref="ClusterAppliedPositions"/>, which wakes the
/// requests waiting for their write (or a client's <c>?after=</c>) to be applied here.
/// </summary>
internal sealed partial class ClusterApplier : IBatchAcknowledger, IAsyncDisposable
{
    /// <summary>The source name the applier's positions and dead letters are stored under.</summary>
    public const string SourceName = "cluster";

    private static readonly TimeSpan DisposeTimeout = TimeSpan.FromSeconds(15);

    private readonly ClusterOptions _options;
    private readonly DocumentStore _store;
    private readonly ClusterAppliedPositions _applied;
    private readonly ILogger _logger;
    private readonly KafkaPartitionTable _partitions = new(SourceName);
    private readonly KafkaConnectionStatus _connection = new();
    private readonly KafkaShutdown _shutdown = new();
    private readonly BatchWriter _writer;
    private readonly KafkaFlowControl _flow;
    private readonly KafkaHousekeeping _housekeeping;
    private readonly KafkaRebalanceHandler _rebalance;
    private readonly KafkaReset _reset;
    private readonly ClusterRecordApplier _records;
    private KafkaConsumeLoop? _loop;
    private int _disposed;

    public ClusterApplier(
        ClusterOptions options, DocumentStore store, BatchingOptions batching, ClusterAppliedPositions applied, ClusterOutcomes outcomes,
        IEnumerable<IClusterRecordHandler> handlers, SourcesOptions sources, ILoggerFactory loggers, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handlers);
        ArgumentNullException.ThrowIfNull(loggers);
        _options = options;
        _store = store;
        _applied = applied;
        _logger = loggers.CreateLogger<ClusterApplier>();
        _writer = new BatchWriter(SourceName, store, batching, _partitions, this, loggers.CreateLogger<BatchWriter>(), time);
        var offsets = new KafkaOffsetStorer(SourceName, _partitions, _logger);
        _housekeeping = new KafkaHousekeeping(offsets, new KafkaWatermarkRefresher(_partitions));
        _flow = new KafkaFlowControl(SourceName, _connection, _housekeeping, _logger);
        _rebalance = new KafkaRebalanceHandler(
            // The cluster topic is read from its start wherever the store has no position: it holds every write.
            SourceName, store, _partitions, _writer, offsets, _flow, _connection, watch: null, Offset.Beginning, _shutdown.Abandoning, _shutdown.DrainGivenUp, _logger);
        _reset = new KafkaReset(SourceName, store, _partitions, _writer, new KafkaOffsetResolver(SourceName, [options.Topic]), _shutdown.DrainGivenUp, _logger);
        var byKind = new Dictionary<string, IClusterRecordHandler>(StringComparer.Ordinal);
        foreach (var handler in handlers)
        {
            if (!byKind.TryAdd(handler.Kind, handler))
            {
                throw new InvalidOperationException($"Two cluster record handlers apply records of kind '{handler.Kind}'.");
            }
        }

        _records = new ClusterRecordApplier(
            options.Node!, store, _writer, _partitions, _connection, _flow, byKind, ClusterSourceMapping.FromOptions(sources), outcomes, _logger,
            _shutdown.Abandoning);
    }

    /// <summary>The key the applier's positions are stored under: <c>cluster/&lt;topic&gt;</c>.</summary>
    public static string Origin(ClusterOptions options) => SourceOrigin.Of(SourceName, (options ?? throw new ArgumentNullException(nameof(options))).Topic);

    /// <summary>
    /// The consumer group the applier uses: <c>&lt;cluster topic&gt;.&lt;node&gt;</c>, <c>ingest-cluster.node-1</c> by default;
    /// named after the topic so two clusters on one Kafka never share a node's group.
    /// </summary>
    public static string GroupId(ClusterOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.Topic + "." + options.Node;
    }

    /// <summary>Whether the applier reaches the cluster's brokers, and its last error.</summary>
    public bool IsConnected => _connection.IsConnected(hasAssignment: _rebalance.AssignedCount > 0);

    /// <summary>The consumer's last error, null while it works.</summary>
    public string? Error => _connection.Error ?? _writer.LastError;

    /// <summary>Records this node applied (puts, deletes), for status pages and tests.</summary>
    public long Written => _writer.Written;

    public void Start()
    {
        if (_loop is not null)
        {
            throw new InvalidOperationException("The cluster applier is already started.");
        }

        _loop = new KafkaConsumeLoop(SourceName, BuildConsumer(), [_options.Topic], _records, _housekeeping, _rebalance, _reset, _connection, _shutdown, _logger);
        _loop.Start();
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        if (_loop is not null)
        {
            using (_shutdown.GiveUpDrainingWhen(cancellationToken))
            {
                await _shutdown.StopAsync().ConfigureAwait(false);
                try
                {
                    await _loop.Stopped.WaitAsync(cancellationToken).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    LogGaveUpWaiting(_logger);
                }
            }
        }

        await _writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _shutdown.AbandonAsync().ConfigureAwait(false);
        var finished = true;
        if (_loop is not null)
        {
            try
            {
                await _loop.Stopped.WaitAsync(DisposeTimeout).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                finished = false;
                LogGaveUpWaiting(_logger);
            }
        }

        await _writer.DisposeAsync().ConfigureAwait(false);
        if (finished)
        {
            _shutdown.Dispose();
        }
    }

    ValueTask IBatchAcknowledger.AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        _partitions.RecordDurable(batch.Items);

        // The store's positions are the truth (a batch may hold items of a partition lost meanwhile, which did not
        // commit theirs): one read per batch, not per record.
        foreach (var stored in _store.GetSourcePositions(Origin(_options)))
        {
            _applied.Advance(stored.Position.Partition, stored.Position.NextOffset);
        }

        return ValueTask.CompletedTask;
    }

    private IConsumer<byte[]?, byte[]?> BuildConsumer()
    {
        var config = new ConsumerConfig
        {
            AutoOffsetReset = AutoOffsetReset.Earliest,
            FetchWaitMaxMs = 100,
            FetchQueueBackoffMs = 50,
            AutoCommitIntervalMs = 1_000,

            // A cluster topic another node created a moment ago may be missing from this client's first metadata;
            // without a prompt refresh the group waits for the next one before it assigns anything.
            TopicMetadataRefreshIntervalMs = 5_000,
        };
        KafkaClientSettings.Apply(config, _options.BootstrapServers!, _options.Settings);
        config.GroupId = GroupId(_options);
        config.ClientId = $"ingest-{_options.Node}/{SourceName}";
        config.GroupInstanceId = NodeIdentity.StaticMember(_options, SourceName);
        config.StatisticsIntervalMs = 1_000;

        // As a Kafka source: the store's positions are where the applier resumes; the group only mirrors them.
        config.EnableAutoOffsetStore = false;
        config.EnableAutoCommit = true;
        return new ConsumerBuilder<byte[]?, byte[]?>(config)
            .SetKeyDeserializer(Deserializers.ByteArray)
            .SetValueDeserializer(Deserializers.ByteArray)
            .SetPartitionsAssignedHandler(_rebalance.OnAssigned)
            .SetPartitionsRevokedHandler(_rebalance.OnRevoked)
            .SetPartitionsLostHandler(_rebalance.OnLost)
            .SetErrorHandler((_, error) => OnError(error))
            .SetStatisticsHandler((_, json) => _connection.RecordStatistics(json))
            .Build();
    }

    private void OnError(Error error)
    {
        var reason = KafkaClientError.Describe(error.Code, error.Reason, _options.Settings);
        _connection.RecordClientError(reason, KafkaClientError.IsCredentialError(error.Code));
        LogClientError(_logger, error.Code, reason);
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster applier: client error {Code}: {Reason}")]
    private static partial void LogClientError(ILogger logger, ErrorCode code, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster applier: the consume thread did not finish in time; leaving it (what is not durable is applied again at the next start)")]
    private static partial void LogGaveUpWaiting(ILogger logger);
}
