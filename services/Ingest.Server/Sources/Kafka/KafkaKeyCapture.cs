using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The source's key deserializer: copies the key into one buffer it reuses and gives the record a
/// shared empty <see cref="Marker"/> array, instead of a fresh array per record (Confluent's
/// <see cref="Deserializers.ByteArray"/>). The mapper reads the key only while the record is handled
/// (the id string it makes from it, a deferred message's own copy), so nothing outlives the next poll.
/// A record whose key is not the marker (a test's scripted consumer) keeps its own array; a null key
/// stays null. Consume thread only: librdkafka calls deserializers on the thread that polls.
/// </summary>
internal sealed class KafkaKeyCapture : IDeserializer<byte[]?>
{
    // Above this the buffer is dropped after the record, so one huge key does not pin its size.
    private const int KeptBufferBytes = 64 * 1024;

    private byte[] _buffer = new byte[256];
    private int _length = -1;

    /// <summary>The key every captured record carries instead of its bytes.</summary>
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
    /// The key of the record just consumed when <paramref name="key"/> is the <see cref="Marker"/>;
    /// valid until the next poll. Else the record's own array, or empty for a null key.
    /// </summary>
    public ReadOnlySpan<byte> Read(byte[]? key)
    {
        if (ReferenceEquals(key, Marker) && _length >= 0)
        {
            return _buffer.AsSpan(0, _length);
        }

        return key;
    }

    /// <summary>Lets go of a buffer grown past <see cref="KeptBufferBytes"/> once its record is mapped.</summary>
    public void Trim()
    {
        if (_buffer.Length > KeptBufferBytes)
        {
            _buffer = new byte[256];
        }
    }
}
