using Confluent.Kafka;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// One consumed record on its way to the writer: stamped with its partition's position and epoch,
/// mapped by the source's pipeline, and handed over, with the flow control waiting while the
/// writer has no room. A record the writer did not take is read again. Consume thread only.
/// </summary>
internal sealed class KafkaRecordHandler(
    SourcePipeline pipeline, KafkaPartitionTable partitions, KafkaConnectionStatus connection, KafkaFlowControl flow, CancellationToken abandon,
    KafkaValueCapture values) : IKafkaRecordHandler
{
    private readonly KafkaHeadersView _headers = new();

    /// <summary>Whether the writer has stopped (then a failure is not worth retrying).</summary>
    public bool WriterStopped => pipeline.Writer.IsStopped;

    public void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result)
    {
        connection.RecordContact();
        var message = result.Message;
        var topic = result.Topic;
        var partition = result.Partition.Value;
        var state = partitions.Get(topic, partition, out var epoch);
        var position = new ItemPosition(state.Origin, partition, result.Offset.Value, epoch, state.Topic);
        var key = message.Key;
        var value = message.Value;
        var headers = message.Headers is { Count: > 0 } present ? present : null;
        _headers.Headers = headers;

        // A captured value is in the capture's reused buffer: the mapper copies a put's body into a
        // pooled array. Another array is the record's own: a put keeps it, no copy.
        var captured = values.TryTake(value, out var body);
        var incoming = IncomingMessage.FromKafka(topic, key, key is not null, captured ? body : value, value is null, headers is null ? null : _headers);
        var item = pipeline.Map(incoming, _headers, captured ? default : value, position);
        _headers.Headers = null;
        values.Trim();
        try
        {
            flow.WaitFor(consumer, pipeline.AddAsync(item, abandon));
        }
        catch
        {
            // Not taken: read it again rather than let a later offset become durable past it.
            consumer.Seek(result.TopicPartitionOffset);
            throw;
        }
    }
}
