namespace Ingest.Server.Etl;

/// <summary>
/// One message a transform returned: <paramref name="Key"/> (null: the document id), the JSON body,
/// extra headers, and <paramref name="Destination"/> (the Kafka topic or RabbitMQ routing key; null: the task's).
/// </summary>
internal sealed record EtlScriptOutput(string? Key, byte[] Body, IReadOnlyList<KeyValuePair<string, string>> Headers, string? Destination);
