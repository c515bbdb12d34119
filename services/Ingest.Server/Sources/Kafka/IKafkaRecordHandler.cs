using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// What the consume thread does with each record: a source's <see cref="KafkaRecordHandler"/> maps it by the
/// source's rules; the cluster's applier maps cluster records. Consume thread only.
/// </summary>
internal interface IKafkaRecordHandler
{
    /// <summary>Whether the writer has stopped (then a failure is not worth retrying).</summary>
    bool WriterStopped { get; }

    /// <summary>Hands the record to the writer (waiting while it has no room); a record not taken is sought back to.</summary>
    void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result);
}
