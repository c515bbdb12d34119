using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The source's value deserializer: instead of a fresh array per record (Confluent's
/// <see cref="Deserializers.ByteArray"/>, about 1 KiB of garbage per document that the GC then
/// promoted while its batch waited for the store), it copies the value into one buffer that it
/// reuses, and gives the record a shared empty <see cref="Marker"/> array. The consume thread reads
/// the copy through <see cref="TryTake"/> right after <c>Consume</c> returns, before the next poll
/// overwrites it; the mapper then copies a put's body into a pooled array (<see cref="PayloadPool"/>),
/// returned once its batch is durable, as for RabbitMQ. A record whose value is not the marker (a
/// test's scripted consumer) keeps its own array. Null values stay null: tombstones are unchanged.
/// Consume thread only: librdkafka calls deserializers on the thread that polls.
/// </summary>
internal sealed class KafkaValueCapture : IDeserializer<byte[]?>
{
    // Above this the buffer is dropped after the record, so one huge message does not pin its size.
    private const int KeptBufferBytes = 1024 * 1024;

    private byte[] _buffer = new byte[4096];
    private int _length = -1;

    /// <summary>The value every captured record carries instead of its bytes.</summary>
    public static byte[] Marker { get; } = [];

    public byte[]? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            _length = -1;
            return null;
        }

        if (data.Length > _buffer.Length)
        {
            _buffer = new byte[Math.Max(data.Length, _buffer.Length * 2)];
        }

        data.CopyTo(_buffer);
        _length = data.Length;
        return Marker;
    }

    /// <summary>
    /// The bytes of the record just consumed when <paramref name="value"/> is the <see cref="Marker"/>;
    /// valid until the next poll. False for any other value (then it is the record's own array).
    /// </summary>
    public bool TryTake(byte[]? value, out ReadOnlySpan<byte> bytes)
    {
        if (!ReferenceEquals(value, Marker) || _length < 0)
        {
            bytes = default;
            return false;
        }

        bytes = _buffer.AsSpan(0, _length);
        _length = -1;
        return true;
    }

    /// <summary>Lets go of a buffer grown past <see cref="KeptBufferBytes"/> once its record is mapped.</summary>
    public void Trim()
    {
        if (_buffer.Length > KeptBufferBytes)
        {
            _buffer = new byte[4096];
        }
    }
}
