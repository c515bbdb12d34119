using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The source's value deserializer: instead of a fresh array per record (Confluent's
/// <see cref="Deserializers.ByteArray"/>, about 1 KiB of garbage per document that the GC then
/// promoted while its batch waited for the store), it copies the value out of librdkafka's buffer
/// straight into an array rented from <see cref="PayloadPool"/>, and gives the record a shared empty
/// <see cref="Marker"/> array. The consume thread takes that array with <see cref="TryTake"/> right
/// after <c>Consume</c> returns and hands it to the mapper, which keeps it as the put's (or the
/// deferred transform's) body: one copy per message, returned once its batch is durable. (It was two
/// before: into a reused buffer here, then into a pooled array in the mapper.) A record whose value
/// is not the marker (a test's scripted consumer) keeps its own array. Null values stay null:
/// tombstones are unchanged. Consume thread only: librdkafka calls deserializers on the thread that polls.
/// </summary>
internal sealed class KafkaValueCapture : IDeserializer<byte[]?>
{
    private byte[]? _rented;
    private int _length;

    /// <summary>The value every captured record carries instead of its bytes.</summary>
    public static byte[] Marker { get; } = [];

    public byte[]? Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context)
    {
        // A record polled but never taken (read while fetching was paused, then sought back to): its array goes back.
        ReturnUntaken();
        if (isNull)
        {
            return null;
        }

        if (data.IsEmpty)
        {
            // Nothing to rent (and the pool would refuse an empty array back): TryTake says no, and the
            // record's value, the empty marker, is its body.
            return Marker;
        }

        // Bodies over the pool's largest size are rare; the pool allocates them and drops them on return.
        var rented = PayloadPool.Bodies.Rent(data.Length);
        data.CopyTo(rented);
        _rented = rented;
        _length = data.Length;
        return Marker;
    }

    /// <summary>
    /// The pooled array holding the value of the record just consumed (its first <paramref name="length"/>
    /// bytes) when <paramref name="value"/> is the <see cref="Marker"/>: the caller owns it from now on and
    /// returns it to <see cref="PayloadPool"/> (an item does, through <see cref="IngestItem.Rented"/>).
    /// False for any other value (then it is the record's own array).
    /// </summary>
    public bool TryTake(byte[]? value, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? rented, out int length)
    {
        if (!ReferenceEquals(value, Marker) || _rented is null)
        {
            rented = null;
            length = 0;
            return false;
        }

        rented = _rented;
        length = _length;
        _rented = null;
        return true;
    }

    private void ReturnUntaken()
    {
        if (_rented is { } untaken)
        {
            _rented = null;
            PayloadPool.Bodies.Return(untaken);
        }
    }
}
