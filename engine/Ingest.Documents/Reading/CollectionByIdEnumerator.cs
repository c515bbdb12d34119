using System.Buffers.Binary;
using Ingest.Documents.Records;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Reading;

/// <summary>
/// The live documents of one collection in id order (the order of the case-folded ids' UTF-8 bytes, the same in
/// every store whatever the order of writes); expired documents are skipped. One pass over the id index, which
/// holds every collection's ids: each id's etag is looked up in the collection's set, and only a member's record is read.
/// </summary>
public struct CollectionByIdEnumerator
{
    private readonly DocumentReader _reader;
    private readonly TreeCursor? _ids;
    private readonly FixedSizeTree? _etags;
    private readonly Tree? _documents;
    private bool _started;
    private long _etag;
    private ReadOnlySpanHolder _value;

    internal CollectionByIdEnumerator(DocumentReader reader, Tree? ids, FixedSizeTree? etags, Tree? documents)
    {
        _reader = reader;
        _ids = etags == null ? null : ids?.CreateCursor();
        _etags = etags;
        _documents = documents;
    }

    /// <summary>The current document; valid until the reader is disposed.</summary>
    public readonly DocumentView Current => new(_reader, _etag, _value.Span);

    public bool MoveNext()
    {
        if (_ids == null || _documents == null)
        {
            return false;
        }

        Span<byte> key = stackalloc byte[EtagKey.Size];
        while (_started ? _ids.MoveNext() : _ids.First())
        {
            _started = true;
            var etag = BinaryPrimitives.ReadInt64LittleEndian(_ids.Value);
            if (!_etags!.Contains(etag))
            {
                continue;
            }

            EtagKey.Write(key, etag);
            if (!_documents.TryGet(key, out var value))
            {
                throw new InvalidDataException($"The id index points at etag {etag}, which holds no document.");
            }

            if (!DocumentRecord.Read(value).IsExpired(value, _reader.NowTicks))
            {
                _etag = etag;
                _value = new ReadOnlySpanHolder(value);
                return true;
            }
        }

        _started = true;
        return false;
    }

    public readonly CollectionByIdEnumerator GetEnumerator() => this;
}
