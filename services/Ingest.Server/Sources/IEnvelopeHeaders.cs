namespace Ingest.Server.Sources;

/// <summary>
/// A message's headers as a dead letter's envelope stores them: in order, values as bytes. Read
/// only when the message becomes a dead letter, so the common path never copies headers.
/// </summary>
internal interface IEnvelopeHeaders
{
    /// <summary>The headers in order; null or empty when the message has none. May throw: the caller keeps the message without them.</summary>
    IReadOnlyList<KeyValuePair<string, byte[]>>? ToEnvelopeHeaders();
}
