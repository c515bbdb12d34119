using System.Globalization;
using System.Text;
using CloudNative.CloudEvents;
using Confluent.Kafka;
using Ingest.Contracts.CloudEvents;

namespace Ingest.Server.Etl;

/// <summary>
/// Writes an ETL message's CloudEvents Kafka binary-mode headers straight from its fields, the same
/// headers <see cref="KafkaCloudEventBinding.Encode"/> gives for <see cref="EtlMessage.ToCloudEvent"/>,
/// without building and validating a CloudEvent per record: the headers every record shares (spec
/// version, types, content type, each collection's source) are built once, and a time header once
/// for the run of records written in the same commit (a header is immutable and the producer copies
/// it when the record is produced, so records share them). Per record only the id, the subject
/// (shared with the key when the key is the document id) and the transform's headers are encoded.
/// One destination's records at a time (the task's send gate).
/// </summary>
internal sealed class EtlKafkaHeaders(string instanceSource)
{
    private const string Prefix = KafkaCloudEventBinding.HeaderPrefix;
    private static readonly CloudEventsSpecVersion Version = CloudEventsSpecVersion.V1_0;
    private static readonly string IdHeader = Prefix + Version.IdAttribute.Name;
    private static readonly string SourceHeader = Prefix + Version.SourceAttribute.Name;
    private static readonly string TypeHeader = Prefix + Version.TypeAttribute.Name;
    private static readonly string SubjectHeader = Prefix + Version.SubjectAttribute.Name;
    private static readonly string TimeHeader = Prefix + Version.TimeAttribute.Name;
    private static readonly Header SpecVersion = new(Prefix + "specversion", Encoding.UTF8.GetBytes(Version.VersionId));
    private static readonly Header PutType = new(TypeHeader, Encoding.UTF8.GetBytes(DocumentEventTypes.Put));
    private static readonly Header DeletedType = new(TypeHeader, Encoding.UTF8.GetBytes(DocumentEventTypes.Deleted));
    private static readonly Header JsonContentType = new(KafkaCloudEventBinding.ContentTypeHeader, Encoding.UTF8.GetBytes(DocumentChangeEvent.JsonContentType));

    private readonly Dictionary<string, Header> _sources = new(StringComparer.Ordinal);
    private long _timeTicks = -1;
    private Header? _time;

    /// <summary>The record for <paramref name="message"/>: key, value (null for a delete: a tombstone) and headers.</summary>
    /// <param name="traceParent">The W3C traceparent of the sending span in UTF-8, or null when none is recorded.</param>
    public Message<byte[], byte[]?> ToRecord(EtlMessage message, byte[]? traceParent = null)
    {
        var subject = Encoding.UTF8.GetBytes(message.DocumentId);
        var key = ReferenceEquals(message.Key, message.DocumentId) || message.Key == message.DocumentId ? subject : Encoding.UTF8.GetBytes(message.Key);
        var headers = new Headers
        {
            SpecVersion,
            new Header(IdHeader, EventId(subject, message.Etag, message.FanOutIndex)),
            SourceOf(message.Collection),
            message.Deleted ? DeletedType : PutType,
            new Header(SubjectHeader, subject),
            TimeOf(message.LastModified),
        };
        if (!message.Deleted)
        {
            headers.Add(JsonContentType);
        }

        if (traceParent != null)
        {
            headers.Add(Telemetry.IngestTracing.TraceParentHeader, traceParent);
        }

        foreach (var (name, value) in message.Headers)
        {
            headers.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return new Message<byte[], byte[]?> { Key = key, Value = message.Deleted ? null : message.Body ?? [], Headers = headers };
    }

    /// <summary><c>{id}@{etag}</c> (and <c>#{n}</c> for a fan-out) in UTF-8, from the id's UTF-8 bytes.</summary>
    private static byte[] EventId(byte[] documentId, long etag, int fanOutIndex)
    {
        Span<byte> suffix = stackalloc byte[48];
        suffix[0] = (byte)'@';
        etag.TryFormat(suffix[1..], out var written, provider: CultureInfo.InvariantCulture);
        var length = 1 + written;
        if (fanOutIndex >= 0)
        {
            suffix[length++] = (byte)'#';
            fanOutIndex.TryFormat(suffix[length..], out written, provider: CultureInfo.InvariantCulture);
            length += written;
        }

        var id = new byte[documentId.Length + length];
        documentId.CopyTo(id, 0);
        suffix[..length].CopyTo(id.AsSpan(documentId.Length));
        return id;
    }

    private Header SourceOf(string collection)
    {
        if (!_sources.TryGetValue(collection, out var source))
        {
            source = new Header(SourceHeader, Encoding.UTF8.GetBytes(Version.SourceAttribute.Format(DocumentChangeEvent.SourceOf(instanceSource, collection))));
            _sources[collection] = source;
        }

        return source;
    }

    private Header TimeOf(DateTime lastModified)
    {
        if (_time is null || lastModified.Ticks != _timeTicks)
        {
            var time = new DateTimeOffset(DateTime.SpecifyKind(lastModified, DateTimeKind.Utc));
            _time = new Header(TimeHeader, Encoding.UTF8.GetBytes(Version.TimeAttribute.Format(time)));
            _timeTicks = lastModified.Ticks;
        }

        return _time;
    }
}
