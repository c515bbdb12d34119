using CloudNative.CloudEvents;
using Ingest.Contracts.CloudEvents;

namespace Ingest.Server.Etl;

/// <summary>
/// One message to publish, kept as the change's fields rather than a <see cref="CloudEvent"/> so the
/// destinations write the binary-mode headers straight from them (see <see cref="EtlKafkaHeaders"/>):
/// the document's id, etag, collection and last-modified time, whether it is a delete, the body (empty
/// for a delete; a document's may be a slice of its batch's read buffer, see <see cref="EtlBatch"/>), the fan-out index (-1: the only message of its change), the Kafka key, the topic or
/// routing key (null: the task's), and headers a transform added.
/// </summary>
internal sealed record EtlMessage(
    string DocumentId,
    long Etag,
    string Collection,
    DateTime LastModified,
    bool Deleted,
    ReadOnlyMemory<byte> Body,
    int FanOutIndex,
    string Key,
    string? Destination,
    IReadOnlyList<KeyValuePair<string, string>> Headers)
{
    /// <summary>The CloudEvents id: <c>{documentId}@{etag}</c>, with <c>#{n}</c> for the n-th of several messages of one change.</summary>
    public string EventId => FanOutIndex < 0
        ? DocumentChangeEvent.EventId(DocumentId, Etag)
        : $"{DocumentChangeEvent.EventId(DocumentId, Etag)}#{FanOutIndex}";

    /// <summary>The message as a CloudEvent whose <c>source</c> starts with <paramref name="instanceSource"/>.</summary>
    public CloudEvent ToCloudEvent(string instanceSource)
    {
        var cloudEvent = DocumentChangeEvent.Create(DocumentId, Etag, Collection, LastModified, Deleted, instanceSource, Body);
        cloudEvent.Id = EventId;
        return cloudEvent;
    }
}
