using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Moves offsets whose batch is durable into the client's offset store; librdkafka's background
/// committer sends them to the group (every <c>auto.commit.interval.ms</c>, on revoke and on
/// close), so that lag tools see progress. The store's own positions, not these, are where the
/// source resumes. Consume thread only.
/// </summary>
/// <remarks>
/// A synchronous Commit here would block the consume thread for as long as the group coordinator
/// is unreachable (confluent-kafka-dotnet#1595), which stalled a broker-restart test: no polling,
/// no error callbacks, no stop. The offset store is manual (<c>enable.auto.offset.store=false</c>),
/// so nothing consumed but not yet durable can reach the group.
/// </remarks>
internal sealed partial class KafkaOffsetStorer(string source, KafkaPartitionTable partitions, ILogger logger)
{
    // Checked after every poll: the coarse millisecond clock is cheap enough for that, and exact enough for 250 ms.
    private const long IntervalMilliseconds = 250;

    private readonly List<TopicPartitionOffset> _unstored = [];
    private long _lastStored;

    /// <summary>Stores what became durable, at most every 250 ms.</summary>
    public void StoreIfDue(IConsumer<byte[]?, byte[]?> consumer)
    {
        var now = Environment.TickCount64;
        if (now - _lastStored >= IntervalMilliseconds)
        {
            _lastStored = now;
            StoreOffsets(consumer, final: false);
        }
    }

    /// <summary>Stores every durable offset not stored yet; false if the client refused (retried next time).</summary>
    /// <param name="consumer">The consumer.</param>
    /// <param name="final">Before a revoke or close: a refusal is worth a warning, not a retry.</param>
    public bool StoreOffsets(IConsumer<byte[]?, byte[]?> consumer, bool final)
    {
        _unstored.Clear();
        if (partitions.CollectUnstored(_unstored) == 0)
        {
            return true;
        }

        try
        {
            foreach (var offset in _unstored)
            {
                consumer.StoreOffset(offset);
            }

            partitions.MarkStored(_unstored);
            return true;
        }
        catch (KafkaException ex)
        {
            if (final)
            {
                LogStoreFailed(logger, source, ex.Error.Reason, ex);
            }
            else
            {
                LogStoreDeferred(logger, source, ex.Error.Reason);
            }

            return false;
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': storing offsets for the group failed ({Reason}); the store has them, lag tools see them once a later store succeeds")]
    private static partial void LogStoreFailed(ILogger logger, string source, string reason, Exception exception);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Kafka source '{Source}': storing offsets for the group failed ({Reason}); retrying shortly")]
    private static partial void LogStoreDeferred(ILogger logger, string source, string reason);
}
