using System.Runtime.InteropServices;
using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.Messages;
using Ingest.Server.Scripting;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// A Kafka record's body is copied once, out of librdkafka's buffer into a pooled array by the value capture, and
/// that array is what the store is given: the put, the message awaiting its transform and the transformed item all
/// hold it (and return it with their batch). A second copy, into another pooled or fresh array, fails these.
/// </summary>
public sealed class KafkaBodyCopyTests
{
    private static readonly SerializationContext Context = new(MessageComponentType.Value, "topic");
    private static readonly MappingRules Rules = new() { Collection = "Orders" };
    private static readonly ItemPosition Position = new("src/topic", 0, 7, 1);

    [Fact]
    public void A_put_keeps_the_array_the_capture_copied_the_value_into()
    {
        var (pooled, body) = Capture("""{"total":12.5}""");

        var item = IngestItemMapper.Map(Message(body), Rules, new KafkaHeadersView(), body, Position, pooled);

        Assert.Equal(IngestItemKind.Put, item.Kind);
        Assert.Same(pooled, item.Rented);
        Assert.Same(pooled, ArrayOf(item.Payload));
        Assert.Equal("""{"total":12.5}""", Encoding.UTF8.GetString(item.Payload.Span));
        item.ReturnRented();
    }

    [Fact]
    public void A_deferred_message_and_its_transformed_item_keep_the_array_the_capture_copied_the_value_into()
    {
        var (pooled, body) = Capture("""{"id":"o1","total":12.5}""");
        Assert.True(SourceScript.TryCompile(
            "function transform(b, m) { return { id: b.id, body: { t: b.total } }; }", new ScriptLimits(TimeSpan.FromSeconds(1), 32L * 1024 * 1024),
            out var script, out var error), error);

        var deferred = IngestItemMapper.Defer(Message(body), new KafkaHeadersView(), body, Position, pooled);
        var transformed = IngestItemMapper.TransformAwaiting(deferred, script!, "src", true, Rules);

        Assert.Equal(IngestItemKind.AwaitingTransform, deferred.Kind);
        Assert.Same(pooled, deferred.Rented);
        Assert.Same(pooled, ArrayOf(deferred.Payload));
        Assert.True(deferred.BodyValidated);
        Assert.Equal(IngestItemKind.Transformed, transformed.Kind);
        Assert.Same(pooled, transformed.Rented);
        Assert.Same(pooled, ArrayOf(transformed.Payload));
        Assert.Equal("o1", Assert.Single(transformed.Operations!).Id);
        transformed.ReturnRented();
    }

    [Fact]
    public void A_delete_or_a_dead_letter_keeps_no_pooled_array()
    {
        var (forDelete, deleteBody) = Capture("{}");
        var (forDeadLetter, deadBody) = Capture("not json");
        var deleteHeaders = new KafkaHeadersView { Headers = new Headers { { "ingest-op", "delete"u8.ToArray() } } };

        var delete = IngestItemMapper.Map(
            IncomingMessage.FromKafka("topic", "k1"u8, true, deleteBody.Span, false, deleteHeaders), Rules, deleteHeaders, deleteBody, Position, forDelete);
        var deadLetter = IngestItemMapper.Map(Message(deadBody), Rules, new KafkaHeadersView(), deadBody, Position, forDeadLetter);

        Assert.Equal(IngestItemKind.Delete, delete.Kind);
        Assert.Null(delete.Rented);
        Assert.Equal(IngestItemKind.DeadLetter, deadLetter.Kind);
        Assert.Null(deadLetter.Rented);
        Assert.NotSame(forDeadLetter, ArrayOf(deadLetter.Payload));
    }

    [Fact]
    public void A_delivery_whose_body_is_only_lent_is_copied_once_into_a_pooled_array_when_deferred()
    {
        var lent = Encoding.UTF8.GetBytes("""{"id":"o1"}""");

        var deferred = IngestItemMapper.Defer(IncomingMessage.FromAmqp("queue", "m1", lent, null), new KafkaHeadersView(), default, Position);

        Assert.NotNull(deferred.Rented);
        Assert.Same(deferred.Rented, ArrayOf(deferred.Payload));
        Assert.True(deferred.Payload.Span.SequenceEqual(lent));
        deferred.ReturnRented();
    }

    private static (byte[] Pooled, ReadOnlyMemory<byte> Body) Capture(string json)
    {
        var capture = new KafkaValueCapture();
        var value = capture.Deserialize(Encoding.UTF8.GetBytes(json), isNull: false, Context);
        Assert.True(capture.TryTake(value, out var pooled, out var length));
        return (pooled, pooled.AsMemory(0, length));
    }

    private static IncomingMessage Message(ReadOnlyMemory<byte> body) => IncomingMessage.FromKafka("topic", "k1"u8, true, body.Span, false, null);

    private static byte[]? ArrayOf(ReadOnlyMemory<byte> payload) => MemoryMarshal.TryGetArray(payload, out var segment) ? segment.Array : null;
}
