using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;
using Ingest.Server.Sources.RabbitMq;

namespace Ingest.Server.Tests.Sources.Mapping;

/// <summary>The one mapping step: whatever breaks while a message is mapped, it becomes a dead letter and keeps what it can.</summary>
public sealed class IngestItemMapperTests
{
    private static readonly MappingRules Rules = new();
    private static readonly ItemPosition Position = new("src/topic", 2, 41, 7);

    [Fact]
    public void A_valid_kafka_record_becomes_a_put_that_keeps_the_records_own_array()
    {
        var value = """{"a":1}"""u8.ToArray();
        var view = new KafkaHeadersView();
        var item = IngestItemMapper.Map(IncomingMessage.FromKafka("topic", "k1"u8, true, value, false, null), Rules, view, value, Position);

        Assert.Equal(IngestItemKind.Put, item.Kind);
        Assert.Equal("k1", item.Id);
        Assert.True(System.Runtime.InteropServices.MemoryMarshal.TryGetArray(item.Payload, out var segment));
        Assert.Same(value, segment.Array);
        Assert.Null(item.Rented);
        Assert.Equal(Position, item.Position);
    }

    [Fact]
    public void A_mapped_put_says_its_body_was_validated_so_the_store_does_not_read_it_again()
    {
        var value = """{"a":1}"""u8.ToArray();
        var put = IngestItemMapper.Map(IncomingMessage.FromKafka("topic", "k1"u8, true, value, false, null), Rules, new KafkaHeadersView(), value, Position);
        var delete = IngestItemMapper.Map(IncomingMessage.FromKafka("topic", "k1"u8, true, null, true, null), Rules, new KafkaHeadersView(), default, Position);

        Assert.Equal(IngestItemKind.Put, put.Kind);
        Assert.True(put.BodyValidated);
        Assert.Equal(IngestItemKind.Delete, delete.Kind);
        Assert.False(delete.BodyValidated);
    }

    [Fact]
    public void A_put_whose_body_the_caller_does_not_hand_over_is_copied_into_a_rented_array()
    {
        var body = """{"a":1}"""u8.ToArray();
        var item = IngestItemMapper.Map(IncomingMessage.FromAmqp("queue", "m1", body, null), Rules, new AmqpEnvelopeHeaders(null), default, Position);

        Assert.Equal(IngestItemKind.Put, item.Kind);
        Assert.NotNull(item.Rented);
        Assert.True(item.Payload.Span.SequenceEqual(body));
        item.ReturnRented();
    }

    [Fact]
    public void A_header_lookup_that_throws_makes_a_dead_letter_whose_reason_is_the_exception_and_whose_envelope_holds_the_message()
    {
        var headers = new Headers { { "trace", "t-1"u8.ToArray() } };
        var envelopeHeaders = new KafkaHeadersView { Headers = headers };
        var message = IncomingMessage.FromKafka("topic", "k1"u8, true, """{"a":1}"""u8, false, new HeadersThatThrow());

        var item = IngestItemMapper.Map(message, Rules, envelopeHeaders, default, Position);

        Assert.Equal(IngestItemKind.DeadLetter, item.Kind);
        Assert.Contains("could not be mapped: InvalidDataException: header table damaged", item.DeadLetterReason, StringComparison.Ordinal);
        var envelope = Decode(item);
        Assert.Equal("k1"u8.ToArray(), envelope.Key);
        Assert.Equal("""{"a":1}"""u8.ToArray(), envelope.Body);
        Assert.Equal("trace", Assert.Single(envelope.Headers).Key);
    }

    [Fact]
    public void Headers_that_cannot_be_read_for_the_envelope_are_left_out_and_the_reason_says_so()
    {
        var message = IncomingMessage.FromKafka("topic", "k1"u8, true, "not json"u8, false, null);

        var item = IngestItemMapper.Map(message, Rules, new EnvelopeHeadersThatThrow(), default, Position);

        Assert.Equal(IngestItemKind.DeadLetter, item.Kind);
        Assert.StartsWith("not JSON", item.DeadLetterReason, StringComparison.Ordinal);
        Assert.Contains("its headers could not be read and are not kept (InvalidDataException: header table damaged)", item.DeadLetterReason, StringComparison.Ordinal);
        var envelope = Decode(item);
        Assert.Empty(envelope.Headers);
        Assert.Equal("not json"u8.ToArray(), envelope.Body);
    }

    [Fact]
    public void A_record_with_more_headers_than_an_envelope_holds_becomes_a_dead_letter_with_the_first_65535()
    {
        const int Count = DeadLetterEnvelope.MaxHeaders + 10;
        var headers = new Headers();
        for (var i = 0; i < Count; i++)
        {
            headers.Add($"h{i}", Encoding.UTF8.GetBytes($"v{i}"));
        }

        var view = new KafkaHeadersView { Headers = headers };
        var body = "not json"u8.ToArray();
        var item = IngestItemMapper.Map(IncomingMessage.FromKafka("topic", "k1"u8, true, body, false, view), Rules, view, body, Position);

        Assert.Equal(IngestItemKind.DeadLetter, item.Kind);
        Assert.Contains($"the envelope keeps the first {DeadLetterEnvelope.MaxHeaders} of its {Count} headers", item.DeadLetterReason, StringComparison.Ordinal);
        var envelope = Decode(item);
        Assert.Equal(DeadLetterEnvelope.MaxHeaders, envelope.Headers.Count);
        Assert.Equal($"h{DeadLetterEnvelope.MaxHeaders - 1}", envelope.Headers[^1].Key);
        Assert.Equal(body, envelope.Body);
    }

    [Fact]
    public void A_header_name_longer_than_an_envelope_holds_is_cut_on_a_character_boundary()
    {
        // 'é' is two UTF-8 bytes, so 65,535 bytes fall in the middle of one.
        var longName = "xx" + new string('é', DeadLetterEnvelope.MaxNameBytes);
        var headers = new Headers { { longName, "v"u8.ToArray() }, { "after", "a"u8.ToArray() } };
        var view = new KafkaHeadersView { Headers = headers };
        var item = IngestItemMapper.Map(IncomingMessage.FromKafka("topic", "k1"u8, true, "[1]"u8, false, view), Rules, view, default, Position);

        Assert.Equal(IngestItemKind.DeadLetter, item.Kind);
        Assert.Contains("1 header name(s) longer than 65535 bytes are cut to that length", item.DeadLetterReason, StringComparison.Ordinal);
        var envelope = Decode(item);
        Assert.Equal(2, envelope.Headers.Count);
        Assert.Equal(DeadLetterEnvelope.MaxNameBytes - 1, Encoding.UTF8.GetByteCount(envelope.Headers[0].Key));
        Assert.StartsWith(envelope.Headers[0].Key, longName, StringComparison.Ordinal);
        Assert.Equal("after", envelope.Headers[1].Key);
    }

    [Fact]
    public void A_message_that_fits_no_envelope_is_kept_as_its_raw_body_with_the_reason()
    {
        // Brokers cannot deliver a destination this long; it stands for whatever the format cannot carry.
        var destination = new string('q', DeadLetterEnvelope.MaxNameBytes + 1);
        var item = IngestItemMapper.Map(IncomingMessage.FromAmqp(destination, null, "oops"u8, null), Rules, new AmqpEnvelopeHeaders(null), default, Position);

        Assert.Equal(IngestItemKind.DeadLetter, item.Kind);
        Assert.Contains("stored as the raw body only", item.DeadLetterReason, StringComparison.Ordinal);
        Assert.Equal("oops"u8.ToArray(), item.Payload.ToArray());
    }

    private static DeadLetterEnvelope Decode(IngestItem item)
    {
        Assert.True(DeadLetterEnvelope.TryDecode(item.Payload.Span, out var envelope, out var error), error);
        return envelope;
    }

    /// <summary>Headers whose lookups fail, as a damaged header table would.</summary>
    private sealed class HeadersThatThrow : IMessageHeaders
    {
        public bool TryGetValue(string name, out ReadOnlySpan<byte> utf8Value) => throw new InvalidDataException("header table damaged");
    }

    private readonly struct EnvelopeHeadersThatThrow : IEnvelopeHeaders
    {
        public IReadOnlyList<KeyValuePair<string, byte[]>>? ToEnvelopeHeaders() => throw new InvalidDataException("header table damaged");
    }
}
