using Confluent.Kafka;
using Ingest.Contracts.Mapping;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The consume thread: the only thread that touches the consumer. It polls, hands each record
/// through the source's pipeline to the writer, lets the flow control wait when the writer has no
/// room, stores durable offsets, and on a graceful stop drains, stores and leaves the group.
/// librdkafka runs the rebalance, error, statistics and log callbacks on this thread too.
/// </summary>
internal sealed partial class KafkaConsumeLoop
{
    private static readonly TimeSpan PollTimeout = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan RetryAfterFailure = TimeSpan.FromSeconds(1);

    private readonly string _source;
    private readonly IConsumer<byte[]?, byte[]?> _consumer;
    private readonly IReadOnlyList<string> _topics;
    private readonly SourcePipeline _pipeline;
    private readonly KafkaPartitionTable _partitions;
    private readonly KafkaConnectionStatus _connection;
    private readonly KafkaOffsetStorer _offsets;
    private readonly Action<IConsumer<byte[]?, byte[]?>> _housekeeping;
    private readonly KafkaFlowControl _flow;
    private readonly KafkaRebalanceHandler _rebalance;
    private readonly KafkaReset _reset;
    private readonly KafkaHeadersView _headers = new();
    private readonly CancellationToken _stopping;
    private readonly CancellationToken _abandon;
    private readonly ILogger _logger;
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Thread _thread;

    public KafkaConsumeLoop(
        string source, IConsumer<byte[]?, byte[]?> consumer, IReadOnlyList<string> topics, SourcePipeline pipeline, KafkaPartitionTable partitions,
        KafkaConnectionStatus connection, KafkaOffsetStorer offsets, Action<IConsumer<byte[]?, byte[]?>> housekeeping, KafkaFlowControl flow,
        KafkaRebalanceHandler rebalance, KafkaReset reset, CancellationToken stopping, CancellationToken abandon, ILogger logger)
    {
        _source = source;
        _consumer = consumer;
        _topics = topics;
        _pipeline = pipeline;
        _partitions = partitions;
        _connection = connection;
        _offsets = offsets;
        _housekeeping = housekeeping;
        _flow = flow;
        _rebalance = rebalance;
        _reset = reset;
        _stopping = stopping;
        _abandon = abandon;
        _logger = logger;
        _thread = new Thread(Run) { IsBackground = true, Name = $"kafka:{source}" };
    }

    /// <summary>Completes when the thread has finished (the consumer is closed and disposed).</summary>
    public Task Stopped => _stopped.Task;

    public void Start() => _thread.Start();

    private void Run()
    {
        var consumer = _consumer;
        try
        {
            consumer.Subscribe(_topics);
            while (!_stopping.IsCancellationRequested)
            {
                try
                {
                    // Between two polls nothing is half-handed to the writer: the place for a reset.
                    _reset.RunPending(consumer);
                    var result = consumer.Consume(PollTimeout);
                    if (result is not null && !result.IsPartitionEOF)
                    {
                        Handle(consumer, result);
                    }

                    _housekeeping(consumer);
                }
                catch (KafkaException ex)
                {
                    // Broken records or broker trouble (ConsumeException is one): librdkafka keeps
                    // reconnecting, so do we.
                    _connection.RecordConsumeError(ex.Error.Reason);
                    LogConsumeFailed(_logger, _source, ex.Error.Reason, ex);
                }
                catch (OperationCanceledException) when (_abandon.IsCancellationRequested)
                {
                    break;
                }
                catch (Exception ex) when (!_pipeline.Writer.IsStopped)
                {
                    // E.g. the store failing a position read in a rebalance callback: keep the
                    // group membership alive and try again rather than go quiet.
                    _connection.RecordConsumeError(ex.Message);
                    LogConsumeFailed(_logger, _source, ex.Message, ex);
                    _stopping.WaitHandle.WaitOne(RetryAfterFailure);
                }
            }

            if (!_abandon.IsCancellationRequested)
            {
                _rebalance.DrainWriter("stop");
                _offsets.StoreOffsets(consumer, final: true);
                consumer.Close();
                LogClosed(_logger, _source);
            }
        }
        catch (Exception ex)
        {
            LogLoopFailed(_logger, _source, ex);
            _connection.RecordConsumeError(ex.Message);
        }
        finally
        {
            _reset.FailPending("stopped before the reset ran");
            try
            {
                consumer.Dispose();
            }
            catch (Exception ex) when (ex is KafkaException or ObjectDisposedException)
            {
                LogLoopFailed(_logger, _source, ex);
            }

            _stopped.TrySetResult();
        }
    }

    private void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result)
    {
        _connection.RecordContact();
        var message = result.Message;
        var topic = result.Topic;
        var partition = result.Partition.Value;
        var state = _partitions.Get(topic, partition, out var epoch);
        var position = new ItemPosition(state.Origin, partition, result.Offset.Value, epoch);
        var key = message.Key;
        var value = message.Value;
        var headers = message.Headers is { Count: > 0 } present ? present : null;
        _headers.Headers = headers;
        var incoming = IncomingMessage.FromKafka(topic, key, key is not null, value, value is null, headers is null ? null : _headers);

        // Confluent allocates a fresh array per record: a put keeps it, no copy.
        var item = _pipeline.Map(incoming, _headers, value, position);
        _headers.Headers = null;
        try
        {
            _flow.WaitFor(consumer, _pipeline.AddAsync(item, _abandon));
        }
        catch
        {
            // Not taken: read it again rather than let a later offset become durable past it.
            consumer.Seek(result.TopicPartitionOffset);
            throw;
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': consuming failed ({Reason}); retrying")]
    private static partial void LogConsumeFailed(ILogger logger, string source, string reason, Exception exception);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': left the consumer group")]
    private static partial void LogClosed(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Critical, Message = "Kafka source '{Source}': the consume loop failed")]
    private static partial void LogLoopFailed(ILogger logger, string source, Exception exception);
}
