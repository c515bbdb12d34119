namespace Ingest.Contracts.Http;

/// <summary>
/// A dead letter for <c>/dead-letters</c>, decoded from its stored envelope. Byte fields that are
/// valid UTF-8 are given as text, others as base64; the matching *Encoding field says which
/// ("utf8" or "base64").
/// </summary>
/// <param name="Id">The dead letter's id.</param>
/// <param name="Source">Where it came from: "&lt;source name&gt;/&lt;topic or queue&gt;".</param>
/// <param name="Partition">The Kafka partition; 0 for a queue.</param>
/// <param name="Offset">The Kafka offset or the queue's delivery position.</param>
/// <param name="Reason">Why the message could not become a document.</param>
/// <param name="Stored">When it was stored (UTC).</param>
/// <param name="Envelope">Whether the stored bytes are a message envelope; when false, <paramref name="Body"/> is all of them in base64.</param>
/// <param name="EnvelopeError">Why the stored bytes are not an envelope, when they are not.</param>
/// <param name="Destination">The topic or queue, from the envelope.</param>
/// <param name="Key">The Kafka key; null when the record had none.</param>
/// <param name="KeyEncoding">"utf8" or "base64"; null without a key.</param>
/// <param name="MessageId">The AMQP message-id, when set.</param>
/// <param name="Tombstone">Whether the message was a Kafka tombstone (null value).</param>
/// <param name="Headers">Header values (the last one where a name repeats); binary values in base64.</param>
/// <param name="Base64Headers">Names of the headers whose values are given in base64.</param>
/// <param name="Body">The message body.</param>
/// <param name="BodyEncoding">"utf8" or "base64".</param>
/// <param name="Size">Size of the stored bytes.</param>
public sealed record DeadLetterEntry(
    long Id,
    string Source,
    int Partition,
    long Offset,
    string Reason,
    DateTime Stored,
    bool Envelope,
    string? EnvelopeError,
    string? Destination,
    string? Key,
    string? KeyEncoding,
    string? MessageId,
    bool Tombstone,
    IReadOnlyDictionary<string, string> Headers,
    IReadOnlyList<string> Base64Headers,
    string Body,
    string BodyEncoding,
    int Size);
