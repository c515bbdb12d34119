using Ingest.Documents.Records;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Reading;

/// <summary>The documents of one collection after an etag, in etag order; expired documents are skipped.</summary>
public struct CollectionEnumerator
{
    private readonly DocumentReader _reader;
    private readonly FixedSizeTreeCursor? _etags;
    private readonly Tree? _documents;
    private readonly long _afterEtag;
    private bool _started;
    private long _etag;
    private ReadOnlySpanHolder _value;

    internal CollectionEnumerator(DocumentReader reader, FixedSizeTree? etags, Tree? documents, long afterEtag)
    {
        _reader = reader;
        _etags = etags?.CreateCursor();
        _documents = documents;
        _afterEtag = afterEtag;
    }

    /// <summary>The current document; valid until the reader is disposed.</summary>
    public readonly DocumentView Current => new(_reader, _etag, _value.Span);

    public bool MoveNext()
    {
        if (_etags == null || _documents == null)
        {
            return false;
        }

        while (MoveNextStored())
        {
            var value = _value.Span;
            if (!DocumentRecord.Read(value).IsExpired(value, _reader.NowTicks))
            {
                return true;
            }
        }

        return false;
    }

    private bool MoveNextStored()
    {
        var etags = _etags!;
        bool ok;
        if (!_started)
        {
            _started = true;
            ok = etags.Seek(_afterEtag == long.MaxValue ? long.MaxValue : _afterEtag + 1);
        }
        else
        {
            ok = etags.MoveNext();
        }

        if (!ok)
        {
            return false;
        }

        _etag = etags.Key;
        Span<byte> key = stackalloc byte[EtagKey.Size];
        EtagKey.Write(key, _etag);
        if (!_documents!.TryGet(key, out var value))
        {
            throw new InvalidDataException($"The collection index lists etag {_etag}, which holds no document.");
        }

        _value = new ReadOnlySpanHolder(value);
        return true;
    }

    public readonly CollectionEnumerator GetEnumerator() => this;
}
