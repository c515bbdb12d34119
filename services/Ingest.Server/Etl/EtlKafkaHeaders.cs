using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using CloudNative.CloudEvents;
using Ingest.Contracts.CloudEvents;
using Ingest.Server.Brokers;
using Ingest.Server.Hosting.Http;

namespace Ingest.Server.Etl;

/// <summary>
/// Writes an ETL message's key and CloudEvents Kafka binary-mode headers straight from its fields
/// into a <see cref="KafkaRecordBuilder"/>, the same headers <see cref="KafkaCloudEventBinding.Encode"/>
/// gives for <see cref="EtlMessage.ToCloudEvent"/>, without building and validating a CloudEvent per
/// record. Header names and the values every record shares (spec version, types, content type, each
/// collection's source) live in native memory made once, and the time once for the run of records
/// written in the same commit (librdkafka copies them when the record is produced). Per record only
/// the id is written: the subject and (when it is the document id) the key are its first bytes.
/// One destination's records at a time (the task's send gate).
/// </summary>
internal sealed unsafe class EtlKafkaHeaders(string instanceSource) : IDisposable
{
    private const string Prefix = KafkaCloudEventBinding.HeaderPrefix;
    private const int SuffixBytes = 48;
    private static readonly CloudEventsSpecVersion Version = CloudEventsSpecVersion.V1_0;
    private static readonly NativeText SpecVersionName = new(Prefix + "specversion");
    private static readonly NativeText IdName = new(Prefix + Version.IdAttribute.Name);
    private static readonly NativeText SourceName = new(Prefix + Version.SourceAttribute.Name);
    private static readonly NativeText TypeName = new(Prefix + Version.TypeAttribute.Name);
    private static readonly NativeText SubjectName = new(Prefix + Version.SubjectAttribute.Name);
    private static readonly NativeText TimeName = new(Prefix + Version.TimeAttribute.Name);
    private static readonly NativeText ContentTypeName = new(KafkaCloudEventBinding.ContentTypeHeader);
    private static readonly NativeText TraceParentName = new(Telemetry.IngestTracing.TraceParentHeader);
    private static readonly NativeText SpecVersion = new(Version.VersionId);
    private static readonly NativeText PutType = new(DocumentEventTypes.Put);
    private static readonly NativeText DeletedType = new(DocumentEventTypes.Deleted);
    private static readonly NativeText JsonContentType = new(DocumentChangeEvent.JsonContentType);

    private readonly Dictionary<string, NativeText> _sources = new(StringComparer.Ordinal);
    private long _timeTicks = -1;
    private NativeText? _time;

    /// <summary>
    /// The scratch bytes <see cref="Write"/> needs at most for <paramref name="message"/> (pass it to
    /// <see cref="KafkaRecordBuilder.Start"/>).
    /// </summary>
    public static int ScratchBytes(EtlMessage message, int traceParentLength)
    {
        var bytes = MaxIdBytes(message) + traceParentLength;
        if (!ReferenceEquals(message.Key, message.DocumentId))
        {
            bytes += Encoding.UTF8.GetMaxByteCount(message.Key.Length);
        }

        var headers = message.Headers;
        for (var i = 0; i < headers.Count; i++)
        {
            bytes += Encoding.UTF8.GetMaxByteCount(headers[i].Key.Length) + 1 + Encoding.UTF8.GetMaxByteCount(headers[i].Value.Length);
        }

        return bytes;
    }

    /// <summary>Adds the key and headers of <paramref name="message"/> to the started <paramref name="record"/> (the value is the caller's).</summary>
    /// <param name="traceParent">The W3C traceparent of the sending span in UTF-8, or empty when none is recorded.</param>
    public void Write(KafkaRecordBuilder record, EtlMessage message, ReadOnlySpan<byte> traceParent = default)
    {
        // The id (see EtlMessage.EventId): {documentId}@{topic}-{partition}-{offset}, @expired-{topic}-{partition}-{offset}
        // or @{etag}, then #{n} for a fan-out; the subject is its document id part.
        var maxId = MaxIdBytes(message);
        var id = record.Reserve(maxId, out var idPointer);
        var idLength = Encoding.UTF8.GetBytes(message.DocumentId, id);
        var subjectLength = idLength;
        id[idLength++] = (byte)'@';
        int written;
        if (message.Position is { } position)
        {
            if (message.Expired)
            {
                "expired-"u8.CopyTo(id[idLength..]);
                idLength += 8;
            }

            idLength += Encoding.UTF8.GetBytes(position.Topic, id[idLength..]);
            id[idLength++] = (byte)'-';
            position.Partition.TryFormat(id[idLength..], out written, provider: CultureInfo.InvariantCulture);
            idLength += written;
            id[idLength++] = (byte)'-';
            position.Offset.TryFormat(id[idLength..], out written, provider: CultureInfo.InvariantCulture);
            idLength += written;
        }
        else
        {
            message.Etag.TryFormat(id[idLength..], out written, provider: CultureInfo.InvariantCulture);
            idLength += written;
        }

        if (message.FanOutIndex >= 0)
        {
            id[idLength++] = (byte)'#';
            message.FanOutIndex.TryFormat(id[idLength..], out written, provider: CultureInfo.InvariantCulture);
            idLength += written;
        }

        record.Unreserve(maxId - idLength);
        if (ReferenceEquals(message.Key, message.DocumentId) || message.Key == message.DocumentId)
        {
            record.Key(idPointer, subjectLength);
        }
        else
        {
            var (key, keyLength) = Encode(record, message.Key, false);
            record.Key((byte*)key, keyLength);
        }

        SpecVersionName.AddTo(record, SpecVersion);
        record.Header(IdName.Pointer, idPointer, idLength);
        SourceName.AddTo(record, SourceOf(message.Collection));
        TypeName.AddTo(record, message.Deleted ? DeletedType : PutType);
        record.Header(SubjectName.Pointer, idPointer, subjectLength);
        TimeName.AddTo(record, TimeOf(message.LastModified));
        if (!message.Deleted)
        {
            ContentTypeName.AddTo(record, JsonContentType);
        }

        if (!traceParent.IsEmpty)
        {
            traceParent.CopyTo(record.Reserve(traceParent.Length, out var value));
            record.Header(TraceParentName.Pointer, value, traceParent.Length);
        }

        var headers = message.Headers;
        for (var i = 0; i < headers.Count; i++)
        {
            var (namePointer, _) = Encode(record, headers[i].Key, true);
            var (valuePointer, valueLength) = Encode(record, headers[i].Value, false);
            record.Header((byte*)namePointer, (byte*)valuePointer, valueLength);
        }
    }

    // The id's bytes at most: the document id, '@', the etag or "expired-", topic, partition and offset, '#' and a fan-out index.
    private static int MaxIdBytes(EtlMessage message) =>
        Encoding.UTF8.GetMaxByteCount(message.DocumentId.Length) + SuffixBytes
        + (message.Position is { } position ? Encoding.UTF8.GetMaxByteCount(position.Topic.Length) + 8 + 11 + 1 : 0);

    public void Dispose()
    {
        foreach (var source in _sources.Values)
        {
            source.Dispose();
        }

        _sources.Clear();
        _time?.Dispose();
        _time = null;
    }

    /// <summary><paramref name="text"/> in UTF-8 in the record's scratch space, NUL-terminated if asked (a header name).</summary>
    private static (nint Pointer, int Length) Encode(KafkaRecordBuilder record, string text, bool terminate)
    {
        var max = Encoding.UTF8.GetMaxByteCount(text.Length) + (terminate ? 1 : 0);
        var bytes = record.Reserve(max, out var pointer);
        var length = Encoding.UTF8.GetBytes(text, bytes);
        if (terminate)
        {
            bytes[length] = 0;
        }

        record.Unreserve(max - length - (terminate ? 1 : 0));
        return ((nint)pointer, length);
    }

    private NativeText SourceOf(string collection)
    {
        if (!_sources.TryGetValue(collection, out var source))
        {
            source = new NativeText(Version.SourceAttribute.Format(DocumentChangeEvent.SourceOf(instanceSource, collection)));
            _sources[collection] = source;
        }

        return source;
    }

    private NativeText TimeOf(DateTime lastModified)
    {
        if (_time is null || lastModified.Ticks != _timeTicks)
        {
            var time = new DateTimeOffset(DateTime.SpecifyKind(lastModified, DateTimeKind.Utc));
            _time?.Dispose();
            _time = new NativeText(Version.TimeAttribute.Format(time));
            _timeTicks = lastModified.Ticks;
        }

        return _time;
    }

    /// <summary>A NUL-terminated UTF-8 string in native memory (a header name or a shared value).</summary>
    private sealed class NativeText : IDisposable
    {
        public NativeText(string text)
        {
            Pointer = NativeKafkaProducer.NativeString(text, out var length);
            Length = length;
        }

        public byte* Pointer { get; private set; }

        public int Length { get; }

        /// <summary>Adds the header named by this text with <paramref name="value"/>.</summary>
        public void AddTo(KafkaRecordBuilder record, NativeText value) => record.Header(Pointer, value.Pointer, value.Length);

        public void Dispose()
        {
            NativeMemory.Free(Pointer);
            Pointer = null;
        }
    }
}
