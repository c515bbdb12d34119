using Confluent.Kafka;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaValueCaptureTests
{
    private static readonly SerializationContext Context = new(MessageComponentType.Value, "topic");

    [Fact]
    public void A_value_is_copied_and_taken_once_through_the_marker()
    {
        var capture = new KafkaValueCapture();
        var source = "{\"id\":1}"u8.ToArray();

        var value = capture.Deserialize(source, isNull: false, Context);
        source[0] = (byte)'x';

        Assert.Same(KafkaValueCapture.Marker, value);
        Assert.True(capture.TryTake(value, out var bytes));
        Assert.Equal("{\"id\":1}"u8.ToArray(), bytes.ToArray());
        Assert.False(capture.TryTake(value, out _));
    }

    [Fact]
    public void A_null_value_stays_null_and_is_not_taken()
    {
        var capture = new KafkaValueCapture();

        var value = capture.Deserialize(default, isNull: true, Context);

        Assert.Null(value);
        Assert.False(capture.TryTake(value, out _));
    }

    [Fact]
    public void An_empty_value_is_captured_as_empty_not_as_a_tombstone()
    {
        var capture = new KafkaValueCapture();

        var value = capture.Deserialize(ReadOnlySpan<byte>.Empty, isNull: false, Context);

        Assert.NotNull(value);
        Assert.True(capture.TryTake(value, out var bytes));
        Assert.True(bytes.IsEmpty);
    }

    [Fact]
    public void A_record_with_its_own_array_is_not_taken_from_the_capture()
    {
        var capture = new KafkaValueCapture();
        _ = capture.Deserialize("{}"u8, isNull: false, Context);

        Assert.False(capture.TryTake("{}"u8.ToArray(), out _));
    }

    [Fact]
    public void A_value_larger_than_the_buffer_is_copied_whole()
    {
        var capture = new KafkaValueCapture();
        var large = new byte[100_000];
        for (var i = 0; i < large.Length; i++)
        {
            large[i] = (byte)(i * 31);
        }

        var value = capture.Deserialize(large, isNull: false, Context);

        Assert.True(capture.TryTake(value, out var bytes));
        Assert.Equal(large, bytes.ToArray());
    }
}
