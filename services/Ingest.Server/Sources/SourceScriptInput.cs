namespace Ingest.Server.Sources;

/// <summary>A message as a source's transform sees it, decoded to text (a ref struct cannot cross into the script host).</summary>
/// <param name="Body">The body as JSON text; null for a Kafka tombstone.</param>
/// <param name="Key">The Kafka key as text; null when the record has none (always on RabbitMQ).</param>
/// <param name="Headers">The headers in order, values as UTF-8 bytes; null when there are none.</param>
/// <param name="Source">The source's name.</param>
/// <param name="IsKafka">Whether <paramref name="Destination"/> is a Kafka topic (else a RabbitMQ queue).</param>
/// <param name="Destination">The topic or queue.</param>
/// <param name="Partition">The Kafka partition.</param>
/// <param name="Offset">The Kafka offset.</param>
/// <param name="MessageId">The AMQP message-id; null when unset (always on Kafka).</param>
/// <param name="DefaultCollection">The collection of a put that names none.</param>
internal readonly record struct SourceScriptInput(
    string? Body,
    string? Key,
    IReadOnlyList<KeyValuePair<string, byte[]>>? Headers,
    string Source,
    bool IsKafka,
    string Destination,
    int Partition,
    long Offset,
    string? MessageId,
    string DefaultCollection);
