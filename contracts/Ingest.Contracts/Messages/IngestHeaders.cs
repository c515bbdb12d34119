namespace Ingest.Contracts.Messages;

/// <summary>
/// Message headers (Kafka record headers, AMQP application properties) that tell Ingest
/// what to do with a message. Header values are UTF-8 strings.
/// </summary>
public static class IngestHeaders
{
    /// <summary>The document id; overrides the Kafka key and the AMQP message-id.</summary>
    public const string Id = "ingest-id";

    /// <summary>The collection the document belongs to; overrides the source's configured collection.</summary>
    public const string Collection = "ingest-collection";

    /// <summary>The operation: <c>put</c> (the default when absent) or <c>delete</c>.</summary>
    public const string Operation = "ingest-op";
}
