namespace Ingest.Server.Sources.RabbitMq;

/// <summary>An AMQP delivery's headers for a dead letter's envelope, converted only when one is written.</summary>
internal readonly struct AmqpEnvelopeHeaders(IDictionary<string, object?>? headers) : IEnvelopeHeaders
{
    public IReadOnlyList<KeyValuePair<string, byte[]>>? ToEnvelopeHeaders() => AmqpHeaderValues.ToEnvelopeHeaders(headers);
}
