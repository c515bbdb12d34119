namespace Ingest.Contracts.Messages;

/// <summary>
/// Read access to a message's headers by name, so the mapper can look at Kafka record headers
/// and AMQP application properties alike without the broker's types and without copying them.
/// </summary>
public interface IMessageHeaders
{
    /// <summary>
    /// Gets the UTF-8 value of the header <paramref name="name"/> (the last one, when a Kafka
    /// record repeats it). Returns false when the header is absent; a present header may be empty.
    /// The span must stay valid for the whole mapping of the message (the server's MessageMapper), across further
    /// lookups, so an adapter must not reuse one scratch buffer between them.
    /// </summary>
    bool TryGetValue(string name, out ReadOnlySpan<byte> utf8Value);
}
