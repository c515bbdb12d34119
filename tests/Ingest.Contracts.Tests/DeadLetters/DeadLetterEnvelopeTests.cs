using System.Text;
using Ingest.Contracts.DeadLetters;

namespace Ingest.Contracts.Tests.DeadLetters;

public sealed class DeadLetterEnvelopeTests
{
    [Fact]
    public void A_kafka_record_round_trips_with_key_headers_and_body()
    {
        List<KeyValuePair<string, byte[]>> headers = [new("ingest-op", "upsert"u8.ToArray()), new("trace", [0, 1, 255])];

        var raw = DeadLetterEnvelope.Encode("orders", "order-1"u8, hasKey: true, null, headers, "{broken"u8, isTombstone: false);

        Assert.True(DeadLetterEnvelope.TryDecode(raw, out var envelope, out var error), error);
        Assert.Equal("orders", envelope.Destination);
        Assert.Equal("order-1"u8.ToArray(), envelope.Key);
        Assert.Null(envelope.MessageId);
        Assert.Equal("{broken"u8.ToArray(), envelope.Body);
        Assert.False(envelope.IsTombstone);
        Assert.Equal(2, envelope.Headers.Count);
        Assert.Equal(new byte[] { 0, 1, 255 }, envelope.Headers[1].Value);
        Assert.Equal(raw, envelope.Encode());
    }

    [Fact]
    public void An_amqp_message_round_trips_with_its_message_id_and_no_key()
    {
        var raw = DeadLetterEnvelope.Encode("queue-ü", default, hasKey: false, "m-17", null, "not json"u8, isTombstone: false);

        Assert.True(DeadLetterEnvelope.TryDecode(raw, out var envelope, out _));
        Assert.Equal("queue-ü", envelope.Destination);
        Assert.Null(envelope.Key);
        Assert.Equal("m-17", envelope.MessageId);
        Assert.Empty(envelope.Headers);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(9)]
    public void Truncated_or_foreign_bytes_are_reported_not_misread(int keep)
    {
        var raw = DeadLetterEnvelope.Encode("orders", "k"u8, hasKey: true, "id", null, "{}"u8, isTombstone: false);

        Assert.False(DeadLetterEnvelope.TryDecode(raw.AsSpan(0, keep), out _, out var error));
        Assert.False(string.IsNullOrEmpty(error));
        Assert.False(DeadLetterEnvelope.TryDecode(Encoding.UTF8.GetBytes("{\"plain\":true}"), out _, out _));
        Assert.False(DeadLetterEnvelope.TryDecode([.. raw, 0], out _, out var trailing));
        Assert.Contains("unexpected bytes", trailing, StringComparison.Ordinal);
    }
}
