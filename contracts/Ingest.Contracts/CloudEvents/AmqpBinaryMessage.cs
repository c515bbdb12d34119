namespace Ingest.Contracts.CloudEvents;

/// <summary>
/// A CloudEvent in AMQP binary content mode: the message's content-type property, its application
/// properties (RabbitMQ: headers) and its body (empty when the event has no data).
/// </summary>
public sealed record AmqpBinaryMessage(string? ContentType, IReadOnlyDictionary<string, object?> ApplicationProperties, byte[] Body);
