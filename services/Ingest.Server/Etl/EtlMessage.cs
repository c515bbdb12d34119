using CloudNative.CloudEvents;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// One message to publish, kept as the change's fields rather than a <see cref="CloudEvent"/> so the
/// destinations write the binary-mode headers straight from them (see <see cref="EtlKafkaHeaders"/>):
/// the document's id, etag, collection and last-modified time, whether it is a delete, the body (empty
/// for a delete; a document's may be a slice of its batch's read buffer, see <see cref="EtlBatch"/>), the fan-out index (-1: the only message of its change), the Kafka key, the topic or
/// routing key (null: the task's), headers a transform added, the change's log position (null: none) and whether
/// the change is a delete the expiration task made (its position is then the expired version's).
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
    IReadOnlyList<KeyValuePair<string, string>> Headers,
    LogPosition? Position = null,
    bool Expired = false)
{
    /// <summary>
    /// The CloudEvents id, with <c>#{n}</c> for the n-th of several messages of one change: <c>{documentId}@{topic}-{partition}-{offset}</c>
    /// for a change with a log position (the same on every node), <c>{documentId}@expired-{topic}-{partition}-{offset}</c> for the
    /// expiration of a version that had one, else <c>{documentId}@{etag}</c> (one store's own, as in single-node mode).
    /// </summary>
    public string EventId => FanOutIndex < 0 ? ChangeId : $"{ChangeId}#{FanOutIndex}";

    private string ChangeId => Position is not { } position
        ? DocumentChangeEvent.EventId(DocumentId, Etag)
        : Expired
            ? DocumentChangeEvent.ExpiredEventId(DocumentId, position.Topic, position.Partition, position.Offset)
            : DocumentChangeEvent.EventId(DocumentId, position.Topic, position.Partition, position.Offset);

    /// <summary>The message as a CloudEvent whose <c>source</c> starts with <paramref name="instanceSource"/>.</summary>
    public CloudEvent ToCloudEvent(string instanceSource)
    {
        var cloudEvent = DocumentChangeEvent.Create(DocumentId, Etag, Collection, LastModified, Deleted, instanceSource, Body);
        cloudEvent.Id = EventId;
        return cloudEvent;
    }
}
