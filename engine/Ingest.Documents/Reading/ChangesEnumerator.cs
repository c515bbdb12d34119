using Ingest.Documents.Records;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Reading;

/// <summary>
/// Documents and tombstones after an etag, in etag order: a merge of two sequential scans (the
/// documents tree and the tombstones tree, both keyed by big-endian etag).
/// </summary>
public struct ChangesEnumerator
{
    private readonly DocumentReader _reader;
    private readonly TreeCursor? _documents;
    private readonly TreeCursor? _tombstones;
    private readonly long _afterEtag;
    private bool _started;
    private bool _hasDocument;
    private bool _hasTombstone;
    private bool _onDocument;

    internal ChangesEnumerator(DocumentReader reader, Tree? documents, Tree? tombstones, long afterEtag)
    {
        _reader = reader;
        _documents = documents?.CreateCursor();
        _tombstones = tombstones?.CreateCursor();
        _afterEtag = afterEtag;
    }

    /// <summary>The current document or tombstone; valid until the reader is disposed.</summary>
    public readonly DocumentView Current => _onDocument
        ? new DocumentView(_reader, EtagKey.Read(_documents!.Key), _documents.Value)
        : new DocumentView(_reader, EtagKey.Read(_tombstones!.Key), _tombstones.Value);

    public bool MoveNext()
    {
        if (!_started)
        {
            _started = true;
            Span<byte> from = stackalloc byte[EtagKey.Size];
            EtagKey.Write(from, _afterEtag == long.MaxValue ? long.MaxValue : _afterEtag + 1);
            _hasDocument = _documents?.Seek(from) == true;
            _hasTombstone = _tombstones?.Seek(from) == true;
        }
        else if (_onDocument)
        {
            _hasDocument = _documents!.MoveNext();
        }
        else
        {
            _hasTombstone = _tombstones!.MoveNext();
        }

        if (_hasDocument && _hasTombstone)
        {
            _onDocument = _documents!.Key.SequenceCompareTo(_tombstones!.Key) < 0;
            return true;
        }

        _onDocument = _hasDocument;
        return _hasDocument || _hasTombstone;
    }

    public readonly ChangesEnumerator GetEnumerator() => this;
}
