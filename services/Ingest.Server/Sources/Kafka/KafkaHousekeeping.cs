using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// What the consume thread does after every poll, also while fetching is paused: durable offsets
/// into the client's offset store (<see cref="KafkaOffsetStorer"/>) and the partitions' high
/// watermarks for lag (<see cref="KafkaWatermarkRefresher"/>), each when it is due. Consume thread only.
/// </summary>
internal sealed class KafkaHousekeeping(KafkaOffsetStorer offsets, KafkaWatermarkRefresher watermarks)
{
    public void RunIfDue(IConsumer<byte[]?, byte[]?> consumer)
    {
        offsets.StoreIfDue(consumer);
        watermarks.RefreshIfDue(consumer);
    }
}
