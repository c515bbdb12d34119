using Confluent.Kafka;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaKeyCaptureTests
{
    private static readonly SerializationContext Context = new(MessageComponentType.Key, "topic");

    [Fact]
    public void A_key_is_copied_and_read_through_the_marker()
    {
        var capture = new KafkaKeyCapture();
        var source = "order-1"u8.ToArray();

        var key = capture.Deserialize(source, isNull: false, Context);
        source[0] = (byte)'x';

        Assert.Same(KafkaKeyCapture.Marker, key);
        Assert.Equal("order-1"u8.ToArray(), capture.Read(key).ToArray());
    }

    [Fact]
    public void A_null_key_stays_null_and_reads_empty()
    {
        var capture = new KafkaKeyCapture();
        _ = capture.Deserialize("earlier"u8, isNull: false, Context);

        var key = capture.Deserialize(default, isNull: true, Context);

        Assert.Null(key);
        Assert.True(capture.Read(key).IsEmpty);
    }

    [Fact]
    public void An_empty_key_is_present_and_empty()
    {
        var capture = new KafkaKeyCapture();

        var key = capture.Deserialize(ReadOnlySpan<byte>.Empty, isNull: false, Context);

        Assert.NotNull(key);
        Assert.True(capture.Read(key).IsEmpty);
    }

    [Fact]
    public void A_record_with_its_own_key_array_reads_that_array()
    {
        var capture = new KafkaKeyCapture();
        _ = capture.Deserialize("captured"u8, isNull: false, Context);

        Assert.Equal("own"u8.ToArray(), capture.Read("own"u8.ToArray()).ToArray());
    }

    [Fact]
    public void A_key_larger_than_the_buffer_is_copied_whole_and_a_short_one_after_it_reads_only_its_own_bytes()
    {
        var capture = new KafkaKeyCapture();
        var large = new byte[10_000];
        Array.Fill(large, (byte)'k');

        var key = capture.Deserialize(large, isNull: false, Context);
        Assert.Equal(large, capture.Read(key).ToArray());
        key = capture.Deserialize("k2"u8, isNull: false, Context);

        Assert.Equal("k2"u8.ToArray(), capture.Read(key).ToArray());
    }
}
