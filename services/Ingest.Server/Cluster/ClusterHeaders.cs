namespace Ingest.Server.Cluster;

/// <summary>
/// The Kafka headers of a cluster record. The Kafka key is the record's key folded as the store folds ids
/// (<see cref="Ingest.Documents.Ids.IdKey"/>), so that one document's writes, whatever their case, share a partition;
/// the key as given travels in <see cref="Key"/>.
/// </summary>
internal static class ClusterHeaders
{
    /// <summary>The record's kind: <c>doc</c>, <c>source</c>, <c>etl-progress</c>, <c>index</c>...</summary>
    public const string Kind = "ingest-kind";

    /// <summary>The record's key as given (a document id keeps its case here).</summary>
    public const string Key = "ingest-cluster-key";

    /// <summary>A <c>doc</c> put's collection (UTF-8).</summary>
    public const string Collection = "ingest-cluster-collection";

    /// <summary>
    /// A conditional <c>doc</c> write: the identity of the version the client's <c>If-Match</c> named, which every
    /// node compares with its own current version at apply time (see <see cref="DocumentVersionIdentity"/>).
    /// </summary>
    public const string IfMatch = "ingest-cluster-if-match";

    /// <summary>The node that produced the record: only it keeps the outcome of a conditional write or an admin change for its caller.</summary>
    public const string Node = "ingest-cluster-node";

    /// <summary>A forwarded RabbitMQ message (<c>source</c> kind): the name of the source whose mapping applies it.</summary>
    public const string Source = "ingest-source";

    /// <summary>A forwarded RabbitMQ message: the queue it was consumed from (the source's first queue when absent).</summary>
    public const string Queue = "ingest-source-queue";

    /// <summary>A forwarded RabbitMQ message: its AMQP message-id property, when it had one.</summary>
    public const string MessageId = "ingest-source-message-id";
}
