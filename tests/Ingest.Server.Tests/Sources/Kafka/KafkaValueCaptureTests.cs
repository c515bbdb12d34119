using Confluent.Kafka;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaValueCaptureTests
{
    private static readonly SerializationContext Context = new(MessageComponentType.Value, "topic");

    [Fact]
    public void A_value_is_copied_into_a_pooled_array_that_is_taken_once_through_the_marker()
    {
        var capture = new KafkaValueCapture();
        var source = "{\"id\":1}"u8.ToArray();

        var value = capture.Deserialize(source, isNull: false, Context);
        source[0] = (byte)'x';

        Assert.Same(KafkaValueCapture.Marker, value);
        Assert.True(capture.TryTake(value, out var rented, out var length));
        Assert.Equal("{\"id\":1}"u8.ToArray(), rented.AsSpan(0, length).ToArray());
        Assert.False(capture.TryTake(value, out _, out _));
        PayloadPool.Bodies.Return(rented);
    }

    [Fact]
    public void Each_record_gets_its_own_array_so_a_taken_body_outlives_the_next_poll()
    {
        var capture = new KafkaValueCapture();

        var first = capture.Deserialize("{\"n\":1}"u8, isNull: false, Context);
        Assert.True(capture.TryTake(first, out var firstArray, out var firstLength));
        var second = capture.Deserialize("{\"n\":2}"u8, isNull: false, Context);
        Assert.True(capture.TryTake(second, out var secondArray, out _));

        Assert.NotSame(firstArray, secondArray);
        Assert.Equal("{\"n\":1}"u8.ToArray(), firstArray.AsSpan(0, firstLength).ToArray());
        PayloadPool.Bodies.Return(firstArray);
        PayloadPool.Bodies.Return(secondArray);
    }

    [Fact]
    public void A_null_value_stays_null_and_is_not_taken()
    {
        var capture = new KafkaValueCapture();

        var value = capture.Deserialize(default, isNull: true, Context);

        Assert.Null(value);
        Assert.False(capture.TryTake(value, out _, out _));
    }

    [Fact]
    public void An_empty_value_is_an_empty_array_of_its_own_not_a_tombstone_and_rents_nothing()
    {
        var capture = new KafkaValueCapture();

        var value = capture.Deserialize(ReadOnlySpan<byte>.Empty, isNull: false, Context);

        Assert.NotNull(value);
        Assert.Empty(value);
        Assert.False(capture.TryTake(value, out _, out _));
    }

    [Fact]
    public void A_record_with_its_own_array_is_not_taken_from_the_capture()
    {
        var capture = new KafkaValueCapture();
        _ = capture.Deserialize("{}"u8, isNull: false, Context);

        Assert.False(capture.TryTake("{}"u8.ToArray(), out _, out _));
    }

    [Fact]
    public void A_value_larger_than_the_pools_largest_array_is_copied_whole()
    {
        var capture = new KafkaValueCapture();
        var large = new byte[PayloadPool.MaxPooledBytes + 100_000];
        for (var i = 0; i < large.Length; i++)
        {
            large[i] = (byte)(i * 31);
        }

        var value = capture.Deserialize(large, isNull: false, Context);

        Assert.True(capture.TryTake(value, out var rented, out var length));
        Assert.Equal(large, rented.AsSpan(0, length).ToArray());
        PayloadPool.Bodies.Return(rented);
    }
}
