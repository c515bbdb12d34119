using Confluent.Kafka;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// One consumed record on its way to the writer: stamped with its partition's position and epoch,
/// mapped by the source's pipeline, and handed over, with the flow control waiting while the
/// writer has no room. A record the writer did not take is read again. Consume thread only.
/// </summary>
/// <param name="onlyTopic">
/// The source's one topic when the consumer is built without topic names in its results
/// (<see cref="KafkaConsumeFields"/>); null when each result names its topic.
/// </param>
internal sealed class KafkaRecordHandler(
    SourcePipeline pipeline, KafkaPartitionTable partitions, KafkaConnectionStatus connection, KafkaFlowControl flow, CancellationToken abandon,
    KafkaKeyCapture keys, KafkaValueCapture values, string? onlyTopic) : IKafkaRecordHandler
{
    private readonly KafkaHeadersView _headers = new();

    /// <summary>Whether the writer has stopped (then a failure is not worth retrying).</summary>
    public bool WriterStopped => pipeline.Writer.IsStopped;

    public void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result)
    {
        connection.RecordContact();
        var message = result.Message;
        var topic = KafkaConsumeFields.TopicOf(result, onlyTopic);
        var partition = result.Partition.Value;
        var state = partitions.Get(topic, partition, out var epoch);
        var position = new ItemPosition(state.Origin, partition, result.Offset.Value, epoch, state.Topic);
        var key = message.Key;
        var value = message.Value;
        var headers = message.Headers is { Count: > 0 } present ? present : null;
        _headers.Headers = headers;

        // A captured value is a pooled array the item takes over (one copy out of librdkafka's buffer, none
        // here). Another array is the record's own: a put keeps it, no copy. The key is read from the key
        // capture's reused buffer while the record is mapped.
        var captured = values.TryTake(value, out var pooled, out var length);
        ReadOnlyMemory<byte> body = captured ? pooled.AsMemory(0, length) : value;
        var incoming = IncomingMessage.FromKafka(topic, keys.Read(key), key is not null, body.Span, value is null, headers is null ? null : _headers);
        var item = pipeline.Map(incoming, _headers, body, position, pooled);
        _headers.Headers = null;
        keys.Trim();
        try
        {
            flow.WaitFor(consumer, pipeline.AddAsync(item, abandon));
        }
        catch
        {
            // Not taken: read it again rather than let a later offset become durable past it.
            consumer.Seek(new TopicPartitionOffset(topic, result.Partition, result.Offset));
            throw;
        }
    }
}
