using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>Keeps each assigned partition's high watermark (for lag in the status) from the client's cached figures. Consume thread only.</summary>
internal sealed class KafkaWatermarkRefresher(KafkaPartitionTable partitions)
{
    // Checked after every poll: the coarse millisecond clock is cheap enough for that.
    private const long IntervalMilliseconds = 1_000;

    private readonly List<KafkaPartitionState> _assigned = [];
    private long _lastRefresh;

    public void RefreshIfDue(IConsumer<byte[]?, byte[]?> consumer)
    {
        var now = Environment.TickCount64;
        if (now - _lastRefresh < IntervalMilliseconds)
        {
            return;
        }

        _lastRefresh = now;
        _assigned.Clear();
        partitions.CollectAssigned(_assigned);
        foreach (var state in _assigned)
        {
            try
            {
                var watermarks = consumer.GetWatermarkOffsets(state.TopicPartition);
                if (watermarks.High.Value >= 0)
                {
                    partitions.SetHighWatermark(state, watermarks.High.Value);
                }
            }
            catch (KafkaException)
            {
                // Cached figures only; the next round tries again.
            }
        }
    }
}
