using System.Text;
using Ingest.Documents.Records;

namespace Ingest.Documents;

/// <summary>
/// A document or tombstone as it lies in the store, without copying. The spans point into the
/// read transaction's pages: valid until the <see cref="DocumentReader"/> that produced it is disposed
/// (reaching for them afterwards throws <see cref="ObjectDisposedException"/>).
/// </summary>
public readonly ref struct DocumentView
{
    private readonly DocumentReader _reader;
    private readonly ReadOnlySpan<byte> _value;
    private readonly DocumentRecord _header;

    internal DocumentView(DocumentReader reader, long etag, ReadOnlySpan<byte> value)
    {
        _reader = reader;
        Etag = etag;
        _value = value;
        _header = DocumentRecord.Read(value);
    }

    /// <summary>The etag of the put, or of the delete for a tombstone.</summary>
    public long Etag { get; }

    /// <summary>The id, UTF-8, in its original casing.</summary>
    public ReadOnlySpan<byte> IdUtf8 => _header.Id(Value);

    /// <summary>The collection, UTF-8, in its original casing.</summary>
    public ReadOnlySpan<byte> CollectionUtf8 => _header.Collection(Value);

    /// <summary>
    /// The JSON body, UTF-8; empty for a tombstone. A body stored compressed is decompressed into the reader's
    /// buffer: valid until the body of another compressed document is read through the same reader.
    /// </summary>
    /// <exception cref="InvalidDataException">A compressed body is damaged or its dictionary is missing.</exception>
    public ReadOnlySpan<byte> Body
    {
        get
        {
            var stored = StoredBody;
            return (_header.Flags & (uint)DocumentFlags.Compressed) == 0 ? stored : _reader.Decompress(Etag, stored);
        }
    }

    /// <summary>The body's bytes as stored (compressed or not); what <see cref="Body"/> reads.</summary>
    public ReadOnlySpan<byte> StoredBody => _header.Body(Value);

    /// <summary>Flags.</summary>
    public DocumentFlags Flags => (DocumentFlags)_header.Flags;

    /// <summary>Whether this is a tombstone.</summary>
    public bool IsDeleted => (Flags & DocumentFlags.Deleted) != 0;

    /// <summary>
    /// When it expires (UTC), or null if it never does. For a tombstone: when the document expired, if the expiration
    /// task deleted it; null for any other delete.
    /// </summary>
    public DateTime? ExpiresAt => _header.HasExpiry ? new DateTime(_header.ExpiresTicks(Value), DateTimeKind.Utc) : null;

    /// <summary>
    /// The log position of the record that produced this version (or delete), the same on every node that applied it;
    /// null if it was written without one. A tombstone the expiration task made carries the position of the version that expired.
    /// </summary>
    public LogPosition? Position
    {
        get
        {
            var position = _header.Position(Value);
            return position.IsEmpty ? null : _reader.ReadPosition(position);
        }
    }

    /// <summary>When it was written (UTC).</summary>
    public DateTime LastModified => new(_header.LastModifiedTicks, DateTimeKind.Utc);

    /// <summary>The id as a string (allocates).</summary>
    public string Id => Encoding.UTF8.GetString(IdUtf8);

    /// <summary>The collection as a string (allocates).</summary>
    public string Collection => Encoding.UTF8.GetString(CollectionUtf8);

    private ReadOnlySpan<byte> Value
    {
        get
        {
            _reader.ThrowIfDisposed();
            return _value;
        }
    }

    /// <summary>Copies the document out of the store.</summary>
    public Document ToDocument() => new(Id, Collection, Etag, LastModified, Flags, Body.ToArray()) { ExpiresAt = ExpiresAt, Position = Position };
}
