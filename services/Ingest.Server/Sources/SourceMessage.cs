namespace Ingest.Server.Sources;

/// <summary>
/// What a source's transform needs of a message besides its body, captured on the consume thread
/// so the script can run later in the batch writer: the client's buffers are only valid while its
/// handler runs, so the key and headers are copies.
/// </summary>
/// <param name="Destination">The Kafka topic or AMQP queue.</param>
/// <param name="Key">The Kafka key; null when the record has none (always on RabbitMQ).</param>
/// <param name="MessageId">The AMQP message-id; null when unset (always on Kafka).</param>
/// <param name="Headers">The headers in envelope form; null when there are none.</param>
/// <param name="IsTombstone">A Kafka record with a null value.</param>
public sealed record SourceMessage(string Destination, byte[]? Key, string? MessageId, IReadOnlyList<KeyValuePair<string, byte[]>>? Headers, bool IsTombstone);
