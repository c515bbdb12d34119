using System.Diagnostics;
using Confluent.Kafka;
using Ingest.Contracts.Mapping;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// A Kafka consumer group feeding the store. The blocking consume loop runs on its own thread,
/// the only one that touches the consumer. Exactly once comes from the store, not from Kafka:
/// each batch commits the partitions' next offsets in the same transaction as its documents, and
/// every assignment resumes from those. Kafka's committed offsets follow (after the batch is
/// durable) only so that standard lag tools see progress.
/// </summary>
public sealed partial class KafkaSource : IngestSource, IBatchAcknowledger
{
    private static readonly TimeSpan PollTimeout = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan PausedPollTimeout = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan PauseAfter = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan DisposeTimeout = TimeSpan.FromSeconds(15);
    private static readonly TimeSpan CommitInterval = TimeSpan.FromMilliseconds(250);
    private static readonly TimeSpan WatermarkInterval = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan StatisticsInterval = TimeSpan.FromSeconds(1);

    private readonly KafkaSourceOptions _options;
    private readonly DocumentStore _store;
    private readonly ILogger _logger;
    private readonly BatchWriter _writer;
    private readonly KafkaPartitionTable _partitions;
    private readonly KafkaHeadersView _headers = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly CancellationTokenSource _abandon = new();
    private readonly CancellationTokenSource _drainCancel = new();
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // Consume thread only.
    private readonly List<TopicPartitionOffset> _commits = [];
    private readonly List<KafkaPartitionState> _assignedScratch = [];
    private readonly Dictionary<TopicPartition, long> _rewinds = [];
    private IConsumer<byte[]?, byte[]?>? _consumer;
    private long _lastCommit;
    private long _lastWatermarks;
    private int _assignmentVersion;

    private Thread? _thread;
    private long _consumed;
    private int _assignedCount;
    private volatile bool _paused;
    private readonly KafkaConnectionStatus _connection = new();
    private int _disposed;

    public KafkaSource(string name, KafkaSourceOptions options, DocumentStore store, BatchingOptions batching, ILoggerFactory loggers, TimeProvider time)
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
        _writer = new BatchWriter(name, store, batching, this, loggers.CreateLogger<BatchWriter>(), time);
    }

    /// <summary>The source's batch writer figures (for tests and /stats).</summary>
    public BatchStatistics Statistics => _writer.Statistics;

    public override Task StartAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (_thread is not null)
        {
            throw new InvalidOperationException($"Kafka source '{Name}' is already started.");
        }

        _consumer = BuildConsumer();
        _thread = new Thread(Run) { IsBackground = true, Name = $"kafka:{Name}" };
        _thread.Start();
        return Task.CompletedTask;
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        if (_thread is null)
        {
            await _writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
            return;
        }

        // If the host's patience runs out, stop waiting for the store: what is not durable is
        // not committed anywhere, so the broker redelivers it.
        using (cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), _drainCancel))
        {
            await _stopping.CancelAsync().ConfigureAwait(false);
            try
            {
                // Close() waits for the group coordinator; with the broker gone it can wait a long
                // time, and the host's shutdown timeout is the limit of our patience.
                await _stopped.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                LogGaveUpWaiting(_logger, Name);
            }
        }

        await _writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
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
            long? highWatermark = high >= 0 ? high : null;
            long? lag = highWatermark is { } h && committed is { } c ? Math.Max(0, h - c) : null;
            partitions.Add(new PartitionStatus(state.Topic, state.Partition, committed, highWatermark, lag));
        }

        partitions.Sort(static (a, b) => a.Name == b.Name ? a.Partition.CompareTo(b.Partition) : string.CompareOrdinal(a.Name, b.Name));
        var error = _connection.Error ?? _writer.LastError;
        var connected = _connection.IsConnected(hasAssignment: Volatile.Read(ref _assignedCount) > 0);
        return new SourceStatus(
            Name, Kind, connected, error, Interlocked.Read(ref _consumed), _writer.Written, _writer.DeadLetters, _paused, partitions, _writer.Statistics);
    }

    public override async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        // Without a graceful stop: give up at once; nothing more is committed to Kafka, and
        // what the store has durably is where the next assignment resumes.
        await _abandon.CancelAsync().ConfigureAwait(false);
        await _drainCancel.CancelAsync().ConfigureAwait(false);
        await _stopping.CancelAsync().ConfigureAwait(false);
        var threadFinished = true;
        if (_thread is not null)
        {
            try
            {
                await _stopped.Task.WaitAsync(DisposeTimeout).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // The consume thread is a background thread stuck in the client library; leave
                // it rather than hang the caller. Nothing more is acknowledged either way.
                threadFinished = false;
                LogGaveUpWaiting(_logger, Name);
            }
        }

        await _writer.DisposeAsync().ConfigureAwait(false);
        if (threadFinished)
        {
            // A thread left behind still reads these (their tokens, their wait handles): they stay
            // undisposed for it, and are collected with it.
            _stopping.Dispose();
            _abandon.Dispose();
            _drainCancel.Dispose();
        }
    }

    bool IBatchAcknowledger.IsCurrent(in IngestItem item) => _partitions.IsCurrent(item);

    void IBatchAcknowledger.AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items) => _partitions.AddPositions(batch, items);

    ValueTask IBatchAcknowledger.AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        // The consume thread commits these to Kafka; the consumer is not ours to touch here.
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
            // How often stored (durable) offsets reach the group, for lag tools.
            AutoCommitIntervalMs = 1_000,
        };
        foreach (var (key, value) in _options.Settings)
        {
            config.Set(key, value);
        }

        config.BootstrapServers = _options.BootstrapServers;

        // The source's connection status follows the brokers' states in these statistics, so it
        // recovers on an idle topic too, not only when a message arrives.
        config.StatisticsIntervalMs = (int)StatisticsInterval.TotalMilliseconds;
        config.GroupId = _options.GroupId;
        // Offsets are stored by hand, and only once their batch is durable (see Commit); the
        // background committer then sends exactly those, never a merely consumed offset.
        config.EnableAutoOffsetStore = false;
        config.EnableAutoCommit = true;
        return new ConsumerBuilder<byte[]?, byte[]?>(config)
            .SetKeyDeserializer(Deserializers.ByteArray)
            .SetValueDeserializer(Deserializers.ByteArray)
            .SetPartitionsAssignedHandler(OnAssigned)
            .SetPartitionsRevokedHandler(OnRevoked)
            .SetPartitionsLostHandler(OnLost)
            .SetErrorHandler(OnError)
            .SetStatisticsHandler((_, json) => _connection.RecordStatistics(json))
            .SetLogHandler(OnLog)
            .Build();
    }

    private void Run()
    {
        var consumer = _consumer!;
        try
        {
            consumer.Subscribe(_options.Topics);
            while (!_stopping.IsCancellationRequested)
            {
                try
                {
                    var result = consumer.Consume(PollTimeout);
                    if (result is not null && !result.IsPartitionEOF)
                    {
                        Handle(consumer, result);
                    }

                    Housekeeping(consumer);
                }
                catch (ConsumeException ex)
                {
                    // Broken records or broker trouble: librdkafka keeps reconnecting, so do we.
                    _connection.RecordConsumeError(ex.Error.Reason);
                    LogConsumeFailed(_logger, Name, ex.Error.Reason, ex);
                }
                catch (KafkaException ex)
                {
                    _connection.RecordConsumeError(ex.Error.Reason);
                    LogConsumeFailed(_logger, Name, ex.Error.Reason, ex);
                }
                catch (OperationCanceledException) when (_abandon.IsCancellationRequested)
                {
                    break;
                }
                catch (Exception ex) when (!_writer.IsStopped)
                {
                    // E.g. the store failing a position read in a rebalance callback: keep the
                    // group membership alive and try again rather than go quiet.
                    _connection.RecordConsumeError(ex.Message);
                    LogConsumeFailed(_logger, Name, ex.Message, ex);
                    _stopping.Token.WaitHandle.WaitOne(TimeSpan.FromSeconds(1));
                }
            }

            if (!_abandon.IsCancellationRequested)
            {
                Drain("stop");
                Commit(consumer, force: true);
                consumer.Close();
                LogClosed(_logger, Name);
            }
        }
        catch (Exception ex)
        {
            LogLoopFailed(_logger, Name, ex);
            _connection.RecordConsumeError(ex.Message);
        }
        finally
        {
            try
            {
                consumer.Dispose();
            }
            catch (Exception ex) when (ex is KafkaException or ObjectDisposedException)
            {
                LogLoopFailed(_logger, Name, ex);
            }

            _stopped.TrySetResult();
        }
    }

    private void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result)
    {
        Interlocked.Increment(ref _consumed);
        _connection.RecordContact();
        var message = result.Message;
        var topic = result.Topic;
        var partition = result.Partition.Value;
        var offset = result.Offset.Value;
        var state = _partitions.Get(topic, partition);
        var epoch = _partitions.EpochOf(state);
        var key = message.Key;
        var value = message.Value;
        var headers = message.Headers is { Count: > 0 } present ? present : null;
        _headers.Headers = headers;
        var incoming = IncomingMessage.FromKafka(topic, key, key is not null, value, value is null, headers is null ? null : _headers);

        // Confluent allocates a fresh array per record: a put keeps it, no copy.
        var item = IngestItemMapper.Map(incoming, Rules, _headers, value, new ItemPosition(state.Origin, partition, offset, epoch));
        if (item.Kind == IngestItemKind.DeadLetter)
        {
            LogDeadLetter(_logger, Name, topic, partition, offset, item.DeadLetterReason!);
        }

        _headers.Headers = null;
        try
        {
            AddToWriter(consumer, item);
        }
        catch
        {
            // Not handed over: read it again rather than let a later offset become durable past it.
            item.ReturnRented();
            consumer.Seek(result.TopicPartitionOffset);
            throw;
        }
    }

    private void AddToWriter(IConsumer<byte[]?, byte[]?> consumer, IngestItem item)
    {
        var pending = _writer.AddAsync(item, _abandon.Token);
        if (!pending.IsCompletedSuccessfully)
        {
            // Most waits last one batch commit (milliseconds): block through those, and pause
            // the fetcher only for a longer stall. A pause costs a seek and a fetch round trip
            // per partition, which at every full batch cut throughput by an order of magnitude.
            // Meanwhile librdkafka's own prefetch queue (queued.max.messages.kbytes) bounds memory.
            var task = pending.AsTask();
            if (Task.WaitAny([task], PauseAfter) < 0)
            {
                WaitForRoom(consumer, task);
            }
            else
            {
                task.GetAwaiter().GetResult();
            }
        }
    }

    /// <summary>
    /// The store is behind: pause fetching but keep polling, so the group membership and the
    /// rebalance callbacks stay alive, until the item is taken. Records that still arrive are
    /// rewound to, never dropped nor buffered.
    /// </summary>
    private void WaitForRoom(IConsumer<byte[]?, byte[]?> consumer, Task pending)
    {
        _paused = true;
        var started = Stopwatch.GetTimestamp();
        var pausedVersion = -1;
        _rewinds.Clear();
        try
        {
            while (!pending.IsCompleted)
            {
                if (pausedVersion != _assignmentVersion)
                {
                    pausedVersion = _assignmentVersion;
                    consumer.Pause(consumer.Assignment);
                }

                try
                {
                    var result = consumer.Consume(PausedPollTimeout);
                    if (result is not null && !result.IsPartitionEOF)
                    {
                        // Rewound to at resume: the lowest offset seen per partition.
                        var tp = result.TopicPartition;
                        if (!_rewinds.TryGetValue(tp, out var lowest) || result.Offset.Value < lowest)
                        {
                            _rewinds[tp] = result.Offset.Value;
                        }
                    }

                    Housekeeping(consumer);
                }
                catch (ConsumeException ex)
                {
                    _connection.RecordConsumeError(ex.Error.Reason);
                    LogConsumeFailed(_logger, Name, ex.Error.Reason, ex);
                }
            }

            pending.GetAwaiter().GetResult();
        }
        finally
        {
            var assignment = consumer.Assignment;
            foreach (var (tp, offset) in _rewinds)
            {
                if (assignment.Contains(tp))
                {
                    consumer.Seek(new TopicPartitionOffset(tp, new Offset(offset)));
                }
            }

            _rewinds.Clear();
            consumer.Resume(assignment);
            _paused = false;
            LogResumed(_logger, Name, Stopwatch.GetElapsedTime(started));
        }
    }

    private void Housekeeping(IConsumer<byte[]?, byte[]?> consumer)
    {
        var now = Stopwatch.GetTimestamp();
        if (Stopwatch.GetElapsedTime(_lastCommit, now) >= CommitInterval)
        {
            _lastCommit = now;
            Commit(consumer, force: false);
        }

        if (Stopwatch.GetElapsedTime(_lastWatermarks, now) >= WatermarkInterval)
        {
            _lastWatermarks = now;
            RefreshWatermarks(consumer);
        }
    }

    /// <summary>
    /// Hands durable offsets to librdkafka's offset store; its background committer sends them
    /// to the group (every <c>auto.commit.interval.ms</c>, on revoke and on close). A synchronous
    /// Commit here blocks the consume thread for as long as the group coordinator is unreachable
    /// (confluent-kafka-dotnet#1595), which stalled a broker-restart test: no polling, no error
    /// callbacks, no stop. Only offsets stored here are ever committed: the offset store is
    /// manual, so nothing consumed but not yet durable can reach the group.
    /// </summary>
    private bool Commit(IConsumer<byte[]?, byte[]?> consumer, bool force)
    {
        _commits.Clear();
        if (_partitions.CollectCommits(_commits) == 0)
        {
            return true;
        }

        try
        {
            foreach (var offset in _commits)
            {
                consumer.StoreOffset(offset);
            }

            _partitions.MarkCommitted(_commits);
            return true;
        }
        catch (KafkaException ex)
        {
            if (force)
            {
                LogCommitFailed(_logger, Name, ex.Error.Reason, ex);
            }
            else
            {
                LogCommitDeferred(_logger, Name, ex.Error.Reason);
            }

            return false;
        }
    }

    private void RefreshWatermarks(IConsumer<byte[]?, byte[]?> consumer)
    {
        _assignedScratch.Clear();
        _partitions.CollectAssigned(_assignedScratch);
        foreach (var state in _assignedScratch)
        {
            try
            {
                var watermarks = consumer.GetWatermarkOffsets(state.TopicPartition);
                if (watermarks.High.Value >= 0)
                {
                    _partitions.SetHighWatermark(state, watermarks.High.Value);
                }
            }
            catch (KafkaException)
            {
                // Cached figures only; the next round tries again.
            }
        }
    }

    /// <summary>Waits until everything handed to the writer is durable; false when given up on.</summary>
    private bool Drain(string why)
    {
        try
        {
            _writer.DrainAsync(_drainCancel.Token).GetAwaiter().GetResult();
            return true;
        }
        catch (OperationCanceledException)
        {
            LogDrainAbandoned(_logger, Name, why);
            return false;
        }
        catch (InvalidOperationException ex)
        {
            LogDrainFailed(_logger, Name, why, ex);
            return false;
        }
    }

    private IEnumerable<TopicPartitionOffset> OnAssigned(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartition> assigned)
    {
        // Anything still in flight for earlier assignments lands first, so the positions read
        // below are the last word.
        if (!_abandon.IsCancellationRequested)
        {
            Drain("assignment");
        }

        var offsets = new List<TopicPartitionOffset>(assigned.Count);
        foreach (var tp in assigned)
        {
            var state = _partitions.Assign(tp.Topic, tp.Partition.Value);
            var stored = _store.GetSourcePosition(state.Origin, state.Partition);
            var offset = stored is { } position ? new Offset(position.Position.NextOffset) : Offset.Unset;
            offsets.Add(new TopicPartitionOffset(tp, offset));
        }

        Interlocked.Add(ref _assignedCount, assigned.Count);
        _assignmentVersion++;
        _connection.RecordContact();
        LogAssigned(_logger, Name, Describe(offsets));
        return offsets;
    }

    private void OnRevoked(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartitionOffset> revoked)
    {
        if (!_abandon.IsCancellationRequested)
        {
            // Everything consumed from these partitions becomes durable and committed before they go.
            Drain("revocation");
            Commit(consumer, force: true);
        }

        Release(revoked);
        LogRevoked(_logger, Name, Describe(revoked));
    }

    private void OnLost(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartitionOffset> lost)
    {
        // Another member may own them already: commit nothing, drop what is not written yet
        // (the broker redelivers it, and the next owner starts from the store's positions).
        Release(lost);
        if (!_abandon.IsCancellationRequested)
        {
            Drain("lost partitions");
        }

        LogLost(_logger, Name, Describe(lost));
    }

    private void Release(List<TopicPartitionOffset> partitions)
    {
        foreach (var tpo in partitions)
        {
            _partitions.Release(tpo.Topic, tpo.Partition.Value);
            _rewinds.Remove(tpo.TopicPartition);
        }

        Interlocked.Add(ref _assignedCount, -partitions.Count);
        _assignmentVersion++;
    }

    private void OnError(IConsumer<byte[]?, byte[]?> consumer, Error error)
    {
        _connection.RecordClientError(error.Reason);
        LogClientError(_logger, Name, error.Code, error.Reason, error.IsFatal);
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

    private static string Describe(List<TopicPartitionOffset> offsets)
    {
        if (offsets.Count == 0)
        {
            return "none";
        }

        var parts = new string[offsets.Count];
        for (var i = 0; i < offsets.Count; i++)
        {
            var offset = offsets[i].Offset;
            parts[i] = $"{offsets[i].Topic}[{offsets[i].Partition.Value}]@{(offset == Offset.Unset ? "group/reset" : offset.Value.ToString(System.Globalization.CultureInfo.InvariantCulture))}";
        }

        return string.Join(", ", parts);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': assigned {Partitions} (offsets from the store; group/reset where it has none)")]
    private static partial void LogAssigned(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': revoked {Partitions}, after writing and committing what was consumed from them")]
    private static partial void LogRevoked(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': lost {Partitions}; unwritten messages from them are dropped and will be redelivered")]
    private static partial void LogLost(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Kafka source '{Source}': {Topic}[{Partition}]@{Offset} is a dead letter: {Reason}")]
    private static partial void LogDeadLetter(ILogger logger, string source, string topic, int partition, long offset, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Kafka source '{Source}': resumed after the store caught up ({Paused} paused)")]
    private static partial void LogResumed(ILogger logger, string source, TimeSpan paused);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': consuming failed ({Reason}); retrying")]
    private static partial void LogConsumeFailed(ILogger logger, string source, string reason, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': committing offsets to Kafka failed ({Reason}); the store has them, lag tools see them once a commit succeeds")]
    private static partial void LogCommitFailed(ILogger logger, string source, string reason, Exception exception);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Kafka source '{Source}': committing offsets to Kafka failed ({Reason}); retrying shortly")]
    private static partial void LogCommitDeferred(ILogger logger, string source, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': gave up waiting for the store during {Why}; unwritten messages will be redelivered")]
    private static partial void LogDrainAbandoned(ILogger logger, string source, string why);

    [LoggerMessage(Level = LogLevel.Error, Message = "Kafka source '{Source}': could not drain the writer during {Why}")]
    private static partial void LogDrainFailed(ILogger logger, string source, string why, Exception exception);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': left the consumer group")]
    private static partial void LogClosed(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Critical, Message = "Kafka source '{Source}': the consume loop failed")]
    private static partial void LogLoopFailed(ILogger logger, string source, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': client error {Code}: {Reason} (fatal: {Fatal})")]
    private static partial void LogClientError(ILogger logger, string source, ErrorCode code, string reason, bool fatal);

    [LoggerMessage(Message = "Kafka source '{Source}': librdkafka {Facility}: {Message}")]
    private static partial void LogClient(ILogger logger, LogLevel level, string source, string facility, string message);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': the consume thread did not finish in time; leaving it (what is not durable is not committed and will be redelivered)")]
    private static partial void LogGaveUpWaiting(ILogger logger, string source);
}
