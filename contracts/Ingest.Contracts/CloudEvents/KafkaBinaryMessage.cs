namespace Ingest.Contracts.CloudEvents;

/// <summary>
/// A CloudEvent in Kafka binary content mode: the record's headers (UTF-8 values) and value; a null
/// value is a Kafka tombstone.
/// </summary>
public sealed record KafkaBinaryMessage(IReadOnlyList<KeyValuePair<string, byte[]>> Headers, byte[]? Value);
