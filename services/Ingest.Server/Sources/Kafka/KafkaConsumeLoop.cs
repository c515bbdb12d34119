using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The consume thread: the only thread that touches the consumer. It polls, runs a waiting reset
/// between polls, hands each record to the <see cref="IKafkaRecordHandler"/> (which waits while the
/// writer has no room), does the <see cref="KafkaHousekeeping"/> (durable offsets to the client's
/// offset store), and on a graceful stop leaves the group through the <see cref="KafkaRebalanceHandler"/>.
/// librdkafka runs the rebalance, error, statistics and log callbacks on this thread too.
/// </summary>
internal sealed partial class KafkaConsumeLoop
{
    private static readonly TimeSpan PollTimeout = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan RetryAfterFailure = TimeSpan.FromSeconds(1);

    private readonly string _source;
    private readonly IConsumer<byte[]?, byte[]?> _consumer;
    private readonly IReadOnlyList<string> _topics;
    private readonly IKafkaRecordHandler _records;
    private readonly KafkaHousekeeping _housekeeping;
    private readonly KafkaRebalanceHandler _rebalance;
    private readonly KafkaReset _reset;
    private readonly KafkaConnectionStatus _connection;
    private readonly CancellationToken _stopping;
    private readonly CancellationToken _abandon;
    private readonly ILogger _logger;
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Thread _thread;

    public KafkaConsumeLoop(
        string source, IConsumer<byte[]?, byte[]?> consumer, IReadOnlyList<string> topics, IKafkaRecordHandler records, KafkaHousekeeping housekeeping,
        KafkaRebalanceHandler rebalance, KafkaReset reset, KafkaConnectionStatus connection, KafkaShutdown shutdown, ILogger logger)
    {
        _source = source;
        _consumer = consumer;
        _topics = topics;
        _records = records;
        _housekeeping = housekeeping;
        _rebalance = rebalance;
        _reset = reset;
        _connection = connection;
        _stopping = shutdown.Stopping;
        _abandon = shutdown.Abandoning;
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
                        _records.Handle(consumer, result);
                    }

                    _housekeeping.RunIfDue(consumer);
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
                catch (Exception ex) when (!_records.WriterStopped)
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
                _rebalance.Leave(consumer);
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

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': consuming failed ({Reason}); retrying")]
    private static partial void LogConsumeFailed(ILogger logger, string source, string reason, Exception exception);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': left the consumer group")]
    private static partial void LogClosed(ILogger logger, string source);

    [LoggerMessage(Level = LogLevel.Critical, Message = "Kafka source '{Source}': the consume loop failed")]
    private static partial void LogLoopFailed(ILogger logger, string source, Exception exception);
}
