using System.Runtime.InteropServices;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Documents.Reading;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// One page of a query's results, computed up to what the page needs: the match set is ready when
/// <see cref="QueryExecutor.Run"/> returns; candidates are ordered a batch at a time and documents read while
/// <see cref="WriteResultsAsync"/> writes them. Holds a document store snapshot and pooled buffers until disposed; the
/// index reader passed to Run must stay open until then. Not thread-safe.
/// </summary>
public sealed class QueryResults : IDisposable
{
    /// <summary>Room for a folded document id (ids are at most 512 UTF-8 bytes; folding may grow a character by a byte).</summary>
    internal const int FoldedIdBufferSize = 2048;

    private const int RowsPerFlush = 256;

    private readonly QueryExecutor _runner;
    private readonly PreparedQuery _prepared;
    private readonly IndexReader? _index;
    private readonly DocumentReader _documents;
    private readonly List<long>? _matches;
    private readonly EntryCandidates? _candidates;
    private readonly SortKeySource[] _keys;
    private readonly long _boundEtag;
    private readonly bool _excludeNewer;
    private readonly byte[]? _foldedId;
    private readonly CancellationToken _ct;
    private CollectionEnumerator _collection;
    private int _skip;
    private int _passed;
    private long _written;
    private long _last;
    private bool _hasLast;
    private bool _exhausted;
    private bool _disposed;

    internal QueryResults(
        QueryExecutor runner, PreparedQuery prepared, IndexReader? index, DocumentReader documents, List<long>? matches,
        EntryCandidates? candidates, SortKeySource[] keys, long totalResults, CancellationToken ct)
    {
        _ct = ct;
        _runner = runner;
        _prepared = prepared;
        _index = index;
        _documents = documents;
        _matches = matches;
        _candidates = candidates;
        _keys = keys;
        TotalResults = totalResults;
        var resume = prepared.Resume;
        _excludeNewer = resume != null;
        _boundEtag = resume?.BoundEtag ?? (index?.LastIndexedEtag ?? documents.LastEtag);
        _skip = resume == null ? prepared.Offset : 0;
        if (prepared.IsCollectionScan)
        {
            _collection = documents.GetCollection(prepared.Collection!, resume?.Last ?? 0);
            _foldedId = prepared.IdFilter == null ? null : new byte[FoldedIdBufferSize];
        }
    }

    /// <summary>The column keys of <see cref="ColumnField"/> per match when the filter walked that column (pooled; returned on dispose).</summary>
    internal List<long>? ColumnKeys { get; init; }

    internal int ColumnField { get; init; } = -1;

    /// <summary>
    /// A projection of the id alone: each row is the entry's id as the index holds it, and no document is read.
    /// </summary>
    internal bool IdsFromIndex { get; init; }

    /// <summary>
    /// With <see cref="IdsFromIndex"/>, whether each id is first looked up in the store (EntryLiveness.IsLive): the
    /// index snapshot does not agree with the store's (QueryExecutor.StoreAgrees), so its document may be gone.
    /// </summary>
    internal bool IdsChecked { get; init; }

    /// <summary>
    /// The size of the match set; a collection scan: the collection's documents. For grouped and faceted queries the
    /// number of rows before offset and limit, and 1 for <c>select count()</c>, known once <see cref="WriteResultsAsync"/> has run.
    /// </summary>
    public long TotalResults { get; private set; }

    public QueryResultShape Shape => _prepared.Shape;

    public IReadOnlyList<QueryColumn> Columns => _prepared.Columns;

    /// <summary>After <see cref="WriteResultsAsync"/>: the token for the next page, or null when this was the last.</summary>
    public string? Continuation { get; private set; }

    /// <summary>The rows written by <see cref="WriteResultsAsync"/> (for aggregated shapes, -1: Aggregation/ does not say).</summary>
    public long Count => _prepared.Aggregation != null ? -1 : _written;

    /// <summary>
    /// Writes the page's rows as JSON values (the elements of a results array: write the array's start and end around
    /// this call), calling <paramref name="flush"/> every few hundred rows so the client sees results as they come.
    /// </summary>
    public async Task WriteResultsAsync(Utf8JsonWriter writer, Func<CancellationToken, ValueTask> flush, CancellationToken ct)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(flush);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_prepared.GroupRows != null)
        {
            (TotalResults, _written, Continuation) = _prepared.GroupRows.Write(_index!, _prepared, writer, _ct.CanBeCanceled ? _ct : ct);
        }
        else if (_prepared.Reaggregation != null)
        {
            (TotalResults, _written) = _prepared.Reaggregation.Write(_index!, writer, _ct.CanBeCanceled ? _ct : ct);
        }
        else if (_prepared.Aggregation != null)
        {
            TotalResults = _prepared.Aggregation.Write(_index!, CollectionsMarshal.AsSpan(_matches), ColumnField, CollectionsMarshal.AsSpan(ColumnKeys), writer, _ct.CanBeCanceled ? _ct : ct);
        }
        else if (_prepared.CountOnlyName != null)
        {
            writer.WriteStartObject();
            writer.WriteNumber(_prepared.CountOnlyName, TotalResults);
            writer.WriteEndObject();
            _written = 1;

            // An aggregate's total is its rows, as for `select count()` answered by an index (one row).
            TotalResults = 1;
        }
        else
        {
            while (WriteSome(writer, RowsPerFlush))
            {
                await flush(ct).ConfigureAwait(false);
                ct.ThrowIfCancellationRequested();
            }

            Continuation = MakeContinuation();
        }

        await flush(ct).ConfigureAwait(false);
    }

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _candidates?.Dispose();
        foreach (var key in _keys)
        {
            key.Dispose();
        }

        EntryListPool.Return(_matches);
        EntryListPool.Return(ColumnKeys);
        _documents.Dispose();
    }

    /// <summary>Writes up to <paramref name="batch"/> rows; false once the page is complete.</summary>
    private bool WriteSome(Utf8JsonWriter writer, int batch)
    {
        for (var n = 0; n < batch; n++)
        {
            if (_prepared.Limit is { } limit && _written >= limit)
            {
                return false;
            }

            if (_prepared.IsCollectionScan ? !WriteNextScanned(writer) : !WriteNextIndexed(writer))
            {
                _exhausted = true;
                return false;
            }
        }

        return true;
    }

    /// <summary>Writes the next row of an index query; false when the candidates are exhausted.</summary>
    private bool WriteNextIndexed(Utf8JsonWriter writer)
    {
        while (_candidates!.TryNext(out var entry))
        {
            CheckCancellation();
            if (_skip > 0)
            {
                _skip--;
                continue;
            }

            if (IdsFromIndex)
            {
                if (!_index!.TryReadDocumentId(entry, out var idUtf8))
                {
                    continue;
                }

                if (IdsChecked && !EntryLiveness.IsLive(_documents, idUtf8, _excludeNewer ? _boundEtag : null))
                {
                    continue; // deleted or expired after the index's snapshot, or written since the first page
                }

                ResultRowWriter.WriteIds(idUtf8, _prepared.Projection, writer);
                _written++;
                _hasLast = true;
                _last = entry;
                return true;
            }

            if (!_index!.TryGetDocumentId(entry, out var id))
            {
                continue;
            }

            _runner.CountDocumentRead();
            if (!_documents.TryGet(id, out var document) || document.IsDeleted)
            {
                continue; // deleted after the index's snapshot
            }

            if (_excludeNewer && document.Etag > _boundEtag)
            {
                continue; // written since the first page: it may have been returned already under its old key
            }

            WriteRow(document, writer);
            _last = entry;
            return true;
        }

        return false;
    }

    private bool WriteNextScanned(Utf8JsonWriter writer)
    {
        if (_prepared.MatchesNothing)
        {
            return false;
        }

        while (_collection.MoveNext())
        {
            CheckCancellation();
            var document = _collection.Current;
            if (document.Etag > _boundEtag)
            {
                return false; // etag order: everything from here on was written after the first page
            }

            if (_foldedId != null && !MatchesIdFilter(document.IdUtf8))
            {
                continue;
            }

            if (_skip > 0)
            {
                _skip--;
                continue;
            }

            _runner.CountDocumentRead();
            WriteRow(document, writer);
            _last = document.Etag;
            return true;
        }

        return false;
    }

    /// <summary>
    /// Rows skipped (an offset, deleted documents, ids a scan's condition leaves out) are work that writes nothing, so no
    /// flush would look at the token: the loops look every <see cref="CancellationCheck.Interval"/> candidates.
    /// </summary>
    private void CheckCancellation()
    {
        if ((++_passed & CancellationCheck.Mask) == 0)
        {
            _ct.ThrowIfCancellationRequested();
        }
    }

    private bool MatchesIdFilter(ReadOnlySpan<byte> idUtf8)
    {
        var length = IndexDocumentKey.Write(idUtf8, _foldedId);
        return length >= 0 && _prepared.IdFilter!.Matches(_foldedId.AsSpan(0, length));
    }

    private void WriteRow(in DocumentView document, Utf8JsonWriter writer)
    {
        if (_prepared.Shape == QueryResultShape.Projection)
        {
            ResultRowWriter.WriteProjection(document, _prepared.Projection, writer);
        }
        else
        {
            ResultRowWriter.WriteDocument(document, writer);
        }

        _written++;
        _hasLast = true;
    }

    private string? MakeContinuation()
    {
        if (_prepared.Limit is not { } limit || _written < limit || _exhausted || !_hasLast || _candidates is { MayHaveMore: false })
        {
            return null;
        }

        var p = _prepared;
        if (p.IsCollectionScan)
        {
            return new ContinuationToken(ContinuationKind.Collection, p.SourceName, 0, _boundEtag, _last, 0, [], []).Encode();
        }

        var keys = new ContinuationKey[_keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            keys[i] = _keys[i].AnchorOf(_last);
        }

        var anchor = _index!.TryReadDocumentKey(_last, out var documentKey) ? QueryExecutor.Fingerprint(documentKey) : 0;
        return new ContinuationToken(ContinuationKind.Index, p.SourceName, p.DefinitionFingerprint, _boundEtag, _last, anchor, p.Order, keys).Encode();
    }
}
