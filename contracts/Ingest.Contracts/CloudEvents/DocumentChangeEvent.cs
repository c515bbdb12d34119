using System.Globalization;
using CloudNative.CloudEvents;

namespace Ingest.Contracts.CloudEvents;

/// <summary>
/// The CloudEvent for one change of one document: <c>id</c> = <c>{documentId}@{topic}-{partition}-{offset}</c>
/// for a change with a log position (<c>{documentId}@{etag}</c> for one without), so a consumer
/// that sees the same change twice (at-least-once delivery) can drop the repeat; <c>subject</c> = the
/// document id; <c>time</c> = the change's last-modified time.
/// </summary>
public static class DocumentChangeEvent
{
    /// <summary>The JSON media type of a put's data.</summary>
    public const string JsonContentType = "application/json";

    /// <summary>The event id of one change: unique per document and etag, stable across resends (etags are one store's own: for a change that has no log position).</summary>
    public static string EventId(string documentId, long etag) =>
        string.Create(CultureInfo.InvariantCulture, $"{documentId}@{etag}");

    /// <summary>
    /// The event id of a change made by the log record at <paramref name="topic"/>, <paramref name="partition"/>,
    /// <paramref name="offset"/>: <c>{documentId}@{topic}-{partition}-{offset}</c>, the same whichever node sends it.
    /// </summary>
    public static string EventId(string documentId, string topic, int partition, long offset) =>
        string.Create(CultureInfo.InvariantCulture, $"{documentId}@{topic}-{partition}-{offset}");

    /// <summary>
    /// The event id of the delete of a document that expired, when the version that expired came from the log record at
    /// <paramref name="topic"/>, <paramref name="partition"/>, <paramref name="offset"/>:
    /// <c>{documentId}@expired-{topic}-{partition}-{offset}</c>, the same on every node that expires that version.
    /// </summary>
    public static string ExpiredEventId(string documentId, string topic, int partition, long offset) =>
        string.Create(CultureInfo.InvariantCulture, $"{documentId}@expired-{topic}-{partition}-{offset}");

    /// <summary>
    /// The <c>source</c> of a collection's events: the instance's source prefix, then the collection
    /// percent-encoded, so every collection name gives a valid URI reference.
    /// </summary>
    public static Uri SourceOf(string instanceSource, string collection)
    {
        ArgumentException.ThrowIfNullOrEmpty(instanceSource);
        ArgumentNullException.ThrowIfNull(collection);
        return new Uri($"{instanceSource.TrimEnd('/')}/{Uri.EscapeDataString(collection)}", UriKind.RelativeOrAbsolute);
    }

    /// <summary>A put (with <paramref name="body"/> as data) or, when <paramref name="deleted"/>, a deleted event without data.</summary>
    public static CloudEvent Create(string documentId, long etag, string collection, DateTime lastModified, bool deleted, string instanceSource, ReadOnlyMemory<byte> body)
    {
        ArgumentException.ThrowIfNullOrEmpty(documentId);
        var cloudEvent = new CloudEvent(CloudEventsSpecVersion.V1_0)
        {
            Id = EventId(documentId, etag),
            Source = SourceOf(instanceSource, collection),
            Type = deleted ? DocumentEventTypes.Deleted : DocumentEventTypes.Put,
            Subject = documentId,
            Time = new DateTimeOffset(DateTime.SpecifyKind(lastModified, DateTimeKind.Utc)),
        };
        if (!deleted)
        {
            cloudEvent.DataContentType = JsonContentType;
            cloudEvent.Data = body;
        }

        return cloudEvent;
    }
}
