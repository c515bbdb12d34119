namespace Ingest.Contracts.Messages;

/// <summary>
/// A message as the broker delivered it, viewed in place: the spans point into the client's
/// buffers and are only valid while the caller holds them.
/// </summary>
public readonly ref struct IncomingMessage
{
    public IncomingMessage(
        string destination,
        ReadOnlySpan<byte> key,
        bool hasKey,
        string? messageId,
        ReadOnlySpan<byte> body,
        bool isTombstone,
        IMessageHeaders? headers)
    {
        ArgumentNullException.ThrowIfNull(destination);
        Destination = destination;
        Key = hasKey ? key : default;
        HasKey = hasKey;
        MessageId = messageId;
        Body = isTombstone ? default : body;
        IsTombstone = isTombstone;
        Headers = headers;
    }

    /// <summary>A Kafka record; a null key or value is passed as <paramref name="hasKey"/> or <paramref name="isTombstone"/>.</summary>
    public static IncomingMessage FromKafka(
        string topic, ReadOnlySpan<byte> key, bool hasKey, ReadOnlySpan<byte> value, bool isTombstone, IMessageHeaders? headers) =>
        new(topic, key, hasKey, messageId: null, value, isTombstone, headers);

    /// <summary>An AMQP delivery; <paramref name="messageId"/> is the basic properties' message-id, null when unset.</summary>
    public static IncomingMessage FromAmqp(string queue, string? messageId, ReadOnlySpan<byte> body, IMessageHeaders? headers) =>
        new(queue, key: default, hasKey: false, messageId, body, isTombstone: false, headers);

    /// <summary>The Kafka topic or AMQP queue the message was consumed from.</summary>
    public string Destination { get; }

    /// <summary>The Kafka key; empty when <see cref="HasKey"/> is false, and possibly empty when it is true.</summary>
    public ReadOnlySpan<byte> Key { get; }

    /// <summary>Whether the record has a key at all (a Kafka null key is false, an empty key true).</summary>
    public bool HasKey { get; }

    /// <summary>The AMQP message-id property, null when not set.</summary>
    public string? MessageId { get; }

    /// <summary>The body; empty for a tombstone.</summary>
    public ReadOnlySpan<byte> Body { get; }

    /// <summary>Whether this is a Kafka record with a null value, which deletes its document.</summary>
    public bool IsTombstone { get; }

    /// <summary>The headers; null when the message has none.</summary>
    public IMessageHeaders? Headers { get; }

    /// <summary>Gets a header's UTF-8 value; false when the message has no such header (or none at all).</summary>
    public bool TryGetHeader(string name, out ReadOnlySpan<byte> utf8Value)
    {
        if (Headers is not null)
        {
            return Headers.TryGetValue(name, out utf8Value);
        }

        utf8Value = default;
        return false;
    }
}
