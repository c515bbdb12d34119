using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Brokers;
using Ingest.Server.Batching;
using Ingest.Server.Cluster;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// A Kafka consumer group feeding the store. Exactly once comes from the store, not from Kafka:
/// each batch commits the partitions' next offsets in the same transaction as its documents, and
/// every assignment resumes from those. Offsets reach the group's committed offsets too (after
/// the batch is durable) only so that standard lag tools see progress.
/// </summary>
/// <remarks>
/// The parts, each with one job: <see cref="SourcePipeline"/> (mapping, counting, the writer),
/// <see cref="KafkaConsumeLoop"/> (the consume thread), <see cref="KafkaRecordHandler"/> (one record
/// to the writer), <see cref="KafkaFlowControl"/> (waiting for the writer), <see cref="KafkaHousekeeping"/>
/// with <see cref="KafkaOffsetStorer"/> (durable offsets to the client's offset store),
/// <see cref="KafkaRebalanceHandler"/> (assignments, leaving the group), <see cref="KafkaPartitionTable"/>
/// (per-partition bookkeeping shared with the writer's thread, and the writer's <see cref="ISourcePositions"/>),
/// <see cref="KafkaConnectionStatus"/>, <see cref="KafkaShutdown"/> (the ways to stop),
/// <see cref="KafkaReset"/> (moving the stored positions on request, with <see cref="KafkaOffsetResolver"/>).
/// docs/message-lifecycle.md follows one message through them.
/// </remarks>
public sealed partial class KafkaSource : IngestSource, IBatchAcknowledger
{
    private static readonly TimeSpan DisposeTimeout = TimeSpan.FromSeconds(15);
    private static readonly TimeSpan StatisticsInterval = TimeSpan.FromSeconds(1);

    private readonly KafkaSourceOptions _options;
    private readonly ClusterOptions _cluster;
    private readonly DocumentStore _store;
    private readonly ILogger _logger;
    private readonly SourcePipeline _pipeline;
    private readonly KafkaPartitionTable _partitions;
    private readonly KafkaConnectionStatus _connection = new();
    private readonly KafkaFlowControl _flow;
    private readonly KafkaKeyCapture _keys = new();
    private readonly KafkaValueCapture _values = new();
    private readonly KafkaRebalanceHandler _rebalance;
    private readonly KafkaReset _reset;
    private readonly KafkaHousekeeping _housekeeping;
    private readonly KafkaRecordHandler _records;
    private readonly KafkaShutdown _shutdown = new();
    private readonly KafkaGroupWatch _watch;
    private readonly string _group;
    private readonly string _clientId;
    private readonly string? _onlyTopic;
    private KafkaConsumeLoop? _loop;
    private int _disposed;

    /// <param name="cluster">Cluster mode's settings (the group is per node there); null or disabled for one node.</param>
    public KafkaSource(
        string name, KafkaSourceOptions options, DocumentStore store, BatchingOptions batching, ILoggerFactory loggers, TimeProvider time, ClusterOptions? cluster = null)
        : base(name, "kafka", (options ?? throw new ArgumentNullException(nameof(options))).ToMappingRules())
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(batching);
        ArgumentNullException.ThrowIfNull(loggers);
        ArgumentNullException.ThrowIfNull(time);
        _options = options;
        _store = store;
        _logger = loggers.CreateLogger<KafkaSource>();
        _partitions = new KafkaPartitionTable(name);
        Script = options.CompileScript(name);
        _pipeline = new SourcePipeline(name, Kind, Rules, Script, store, batching, _partitions, this, loggers, time);
        var offsets = new KafkaOffsetStorer(name, _partitions, _logger);
        _housekeeping = new KafkaHousekeeping(offsets, new KafkaWatermarkRefresher(_partitions));
        _onlyTopic = KafkaConsumeFields.OnlyTopic(options.Topics);
        _flow = new KafkaFlowControl(name, _connection, _housekeeping, _logger, onlyTopic: _onlyTopic);
        cluster ??= new ClusterOptions();
        _cluster = cluster;
        _group = NodeIdentity.SourceGroup(options.GroupId, cluster);
        _clientId = options.Settings.TryGetValue("client.id", out var ownClientId) ? ownClientId : NodeIdentity.ClientId(cluster, name);
        _watch = new KafkaGroupWatch(name, options, _group, _clientId, _logger);
        _records = new KafkaRecordHandler(_pipeline, _partitions, _connection, _flow, _shutdown.Abandoning, _keys, _values, _onlyTopic);
        _rebalance = new KafkaRebalanceHandler(
            name, store, _partitions, _pipeline.Writer, offsets, _flow, _connection, _watch, StartWithoutPosition(options), _shutdown.Abandoning, _shutdown.DrainGivenUp, _logger);
        _reset = new KafkaReset(name, store, _partitions, _pipeline.Writer, new KafkaOffsetResolver(name, options.Topics), _shutdown.DrainGivenUp, _logger);
    }

    /// <summary>The source's batch writer figures (for tests and /stats).</summary>
    public BatchStatistics Statistics => _pipeline.Writer.Statistics;

    public override Task StartAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (_loop is not null)
        {
            throw new InvalidOperationException($"Kafka source '{Name}' is already started.");
        }

        _loop = new KafkaConsumeLoop(Name, BuildConsumer(), _options.Topics, _records, _housekeeping, _rebalance, _reset, _connection, _shutdown, _logger);
        _loop.Start();
        _watch.Start();
        return Task.CompletedTask;
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        if (_loop is null)
        {
            await _pipeline.Writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
            return;
        }

        // If the host's patience runs out, stop waiting for the store: what is not durable is
        // not committed anywhere, so the broker redelivers it.
        using (_shutdown.GiveUpDrainingWhen(cancellationToken))
        {
            await _shutdown.StopAsync().ConfigureAwait(false);
            try
            {
                // Close() waits for the group coordinator; with the broker gone it can wait a long
                // time, and the host's shutdown timeout is the limit of our patience.
                await _loop.Stopped.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                LogGaveUpWaiting(_logger, Name);
            }
        }

        await _watch.DisposeAsync().ConfigureAwait(false);
        await _pipeline.Writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc/>
    /// <remarks>The consume thread runs it between two polls (see <see cref="KafkaReset"/>); this waits for it.</remarks>
    public override Task<IReadOnlyList<PartitionReset>> ResetAsync(SourceResetTarget target, CancellationToken cancellationToken) =>
        RunOnConsumeThreadAsync(new KafkaResetRequest(target, cancellationToken));

    /// <inheritdoc/>
    /// <remarks>The consume thread asks the broker, as for a reset, but moves nothing.</remarks>
    public override async Task<SourceResetTarget> ResolveAsync(SourceResetTarget target, CancellationToken cancellationToken)
    {
        var resolved = await RunOnConsumeThreadAsync(new KafkaResetRequest(target, cancellationToken, resolveOnly: true)).ConfigureAwait(false);
        var offsets = new Dictionary<string, IReadOnlyDictionary<int, long>>(StringComparer.Ordinal);
        foreach (var partition in resolved)
        {
            if (!offsets.TryGetValue(partition.Topic, out var ofTopic))
            {
                offsets[partition.Topic] = ofTopic = new Dictionary<int, long>();
            }

            ((Dictionary<int, long>)ofTopic)[partition.Partition] = partition.To;
        }

        return SourceResetTarget.To(offsets);
    }

    private async Task<IReadOnlyList<PartitionReset>> RunOnConsumeThreadAsync(KafkaResetRequest request)
    {
        ArgumentNullException.ThrowIfNull(request.Target);
        var loop = _loop;
        if (loop is null || _shutdown.Stopping.IsCancellationRequested || loop.Stopped.IsCompleted)
        {
            throw new SourceResetException(SourceResetProblem.Unavailable, $"Kafka source '{Name}' is not running; nothing was reset.");
        }

        _reset.Post(request);
        if (loop.Stopped.IsCompleted)
        {
            // The loop ended between the check and the post: nobody would pick the request up.
            _reset.FailPending("stopped before the reset ran");
        }

        return await request.Completion.WaitAsync(request.CancellationToken).ConfigureAwait(false);
    }

    public override SourceStatus GetStatus()
    {
        var assigned = new List<KafkaPartitionState>();
        _partitions.CollectAssigned(assigned);
        var partitions = new List<PartitionStatus>(assigned.Count);
        foreach (var state in assigned)
        {
            long? committed = _store.GetSourcePosition(state.Origin, state.Partition) is { } stored ? stored.Position.NextOffset : null;
            var high = _partitions.HighWatermarkOf(state);
            // The cached end is refreshed once a second; under load the store has often passed it since. The broker's
            // end is at least what was read, so never report an end behind the committed position.
            long? highWatermark = high >= 0 ? (committed is { } read ? Math.Max(high, read) : high) : null;
            long? lag = highWatermark is { } h && committed is { } c ? Math.Max(0, h - c) : null;
            partitions.Add(new PartitionStatus(state.Topic, state.Partition, committed, highWatermark, lag));
        }

        partitions.Sort(static (a, b) => a.Name == b.Name ? a.Partition.CompareTo(b.Partition) : string.CompareOrdinal(a.Name, b.Name));
        return _pipeline.Status(Name, _connection.IsConnected(hasAssignment: _rebalance.AssignedCount > 0), _connection.Error, _flow.IsPaused, partitions)
            with { Group = _watch.Status };
    }

    public override async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        // Without a graceful stop: give up at once; nothing more is stored for the group, and
        // what the store has durably is where the next assignment resumes.
        await _shutdown.AbandonAsync().ConfigureAwait(false);
        await _watch.DisposeAsync().ConfigureAwait(false);
        var threadFinished = true;
        if (_loop is not null)
        {
            try
            {
                await _loop.Stopped.WaitAsync(DisposeTimeout).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // The consume thread is a background thread stuck in the client library; leave
                // it rather than hang the caller. Nothing more is acknowledged either way.
                threadFinished = false;
                LogGaveUpWaiting(_logger, Name);
            }
        }

        await _pipeline.DisposeAsync().ConfigureAwait(false);
        if (threadFinished)
        {
            // A thread left behind still reads these (their tokens, their wait handles): they stay
            // undisposed for it, and are collected with it.
            _shutdown.Dispose();
        }
    }

    ValueTask IBatchAcknowledger.AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        // The consume thread stores these in the client's offset store; the consumer is not ours to touch here.
        _partitions.RecordDurable(batch.Items);
        return ValueTask.CompletedTask;
    }

    private IConsumer<byte[]?, byte[]?> BuildConsumer()
    {
        var config = new ConsumerConfig
        {
            AutoOffsetReset = AutoOffsetReset.Earliest,
            // A resume after a pause waits for the fetch already in flight; librdkafka's 500 ms
            // long poll would stall every pause that long, so keep it short.
            FetchWaitMaxMs = 100,

            // When the local fetch queue is over its thresholds (this source is slower than the
            // fetcher whenever the store commits), librdkafka postpones the next fetch by this much:
            // its default of 1 s starved the source for most of each second, 81k docs/s against 238k
            // with 50 ms on the ingest benchmark (1M documents, 2026-11-26).
            FetchQueueBackoffMs = 50,
            // How often stored (durable) offsets reach the group, for lag tools.
            AutoCommitIntervalMs = 1_000,
        };
        KafkaClientSettings.Apply(config, _options.BootstrapServers!, _options.Settings);
        KafkaConsumeFields.Apply(config, _onlyTopic);
        config.GroupId = _group;

        // Names this source to the group's other members and to lag tools (docs/cluster.md, "No silent split").
        config.ClientId = _clientId;
        if (!_options.Settings.ContainsKey("group.instance.id") && NodeIdentity.StaticMember(_cluster, Name) is { } member)
        {
            config.GroupInstanceId = member;
        }

        // The connection status follows the brokers' states in these statistics, so it recovers
        // on an idle topic too, not only when a message arrives.
        config.StatisticsIntervalMs = (int)StatisticsInterval.TotalMilliseconds;

        // Offsets are stored by hand, and only once their batch is durable (KafkaOffsetStorer);
        // the background committer then sends exactly those, never a merely consumed offset.
        config.EnableAutoOffsetStore = false;
        config.EnableAutoCommit = true;
        return new ConsumerBuilder<byte[]?, byte[]?>(config)
            .SetKeyDeserializer(_keys)
            .SetValueDeserializer(_values)
            .SetPartitionsAssignedHandler(_rebalance.OnAssigned)
            .SetPartitionsRevokedHandler(_rebalance.OnRevoked)
            .SetPartitionsLostHandler(_rebalance.OnLost)
            .SetErrorHandler(OnError)
            .SetStatisticsHandler((_, json) => _connection.RecordStatistics(json))
            .SetLogHandler(OnLog)
            .Build();
    }

    // Where a partition the store has no position for is read from: its start (so a deleted data directory is
    // rebuilt from the log), or its end when the source's settings say auto.offset.reset=latest.
    private static Offset StartWithoutPosition(KafkaSourceOptions options)
    {
        foreach (var (key, value) in options.Settings)
        {
            if (string.Equals(key, "auto.offset.reset", StringComparison.OrdinalIgnoreCase)
                && value.Trim().ToLowerInvariant() is "latest" or "largest" or "end")
            {
                return Offset.End;
            }
        }

        return Offset.Beginning;
    }

    private void OnError(IConsumer<byte[]?, byte[]?> consumer, Error error)
    {
        var reason = KafkaClientError.Describe(error.Code, error.Reason, _options.Settings);
        _connection.RecordClientError(reason, KafkaClientError.IsCredentialError(error.Code));
        LogClientError(_logger, Name, error.Code, reason, error.IsFatal);
    }

    private void OnLog(IConsumer<byte[]?, byte[]?> consumer, LogMessage message)
    {
        var level = message.Level switch
        {
            SyslogLevel.Emergency or SyslogLevel.Alert or SyslogLevel.Critical or SyslogLevel.Error => LogLevel.Error,
            SyslogLevel.Warning => LogLevel.Warning,
            SyslogLevel.Notice or SyslogLevel.Info => LogLevel.Information,
            _ => LogLevel.Debug,
        };
        LogClient(_logger, level, Name, message.Facility, message.Message);
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': client error {Code}: {Reason} (fatal: {Fatal})")]
    private static partial void LogClientError(ILogger logger, string source, ErrorCode code, string reason, bool fatal);

    [LoggerMessage(Message = "Kafka source '{Source}': librdkafka {Facility}: {Message}")]
    private static partial void LogClient(ILogger logger, LogLevel level, string source, string facility, string message);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': the consume thread did not finish in time; leaving it (what is not durable is not committed and will be redelivered)")]
    private static partial void LogGaveUpWaiting(ILogger logger, string source);
}
