namespace Ingest.Server.Sources;

/// <summary>A message as a source's transform sees it (a ref struct cannot cross into the script host).</summary>
/// <param name="Body">
/// The body, UTF-8 JSON, lent for the call: a pooled array that goes back once its batch is written. The
/// script reads it lazily; what it keeps of it past the call refuses to read it again (a script error).
/// </param>
/// <param name="IsTombstone">A Kafka tombstone: the script gets null for the body.</param>
/// <param name="Key">The Kafka key as text; null when the record has none (always on RabbitMQ).</param>
/// <param name="Headers">The headers in order, values as UTF-8 bytes; null when there are none.</param>
/// <param name="Source">The source's name.</param>
/// <param name="IsKafka">Whether <paramref name="Destination"/> is a Kafka topic (else a RabbitMQ queue).</param>
/// <param name="Destination">The topic or queue.</param>
/// <param name="Partition">The Kafka partition.</param>
/// <param name="Offset">The Kafka offset.</param>
/// <param name="MessageId">The AMQP message-id; null when unset (always on Kafka).</param>
/// <param name="DefaultCollection">The collection of a put that names none.</param>
/// <param name="BodyChecked">
/// The body is known to be one JSON value in valid UTF-8 (the source checked it on its consume
/// thread): the script host reads it lazily without checking it again.
/// </param>
internal readonly record struct SourceScriptInput(
    ReadOnlyMemory<byte> Body,
    bool IsTombstone,
    string? Key,
    IReadOnlyList<KeyValuePair<string, byte[]>>? Headers,
    string Source,
    bool IsKafka,
    string Destination,
    int Partition,
    long Offset,
    string? MessageId,
    string DefaultCollection,
    bool BodyChecked = false);
