using Ingest.Indexing.Terms;
using Ingest.Storage;
using Ingest.Storage.Backup;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>
/// A consistent view of one index (one read transaction) for the query layer. Every query appends entry ids to the
/// caller's list in ascending order without repeats. Field numbers are the definition's ordinals; terms are encoded as
/// extraction encodes them (Terms/). Not thread-safe; dispose it to release the snapshot.
/// </summary>
public sealed partial class IndexReader : IDisposable
{
    private readonly ReadTransaction _tx;
    private readonly int _fieldCount;
    private readonly Tree _terms;
    private readonly Tree _entries;
    private readonly Tree _docs;
    private byte[]? _key;
    private byte[]? _high;
    private readonly Action? _onDispose;
    private readonly Reduce.ReducePlan? _reduce;
    private long[]? _chunk;
    private bool _disposed;

    internal IndexReader(ReadTransaction tx, int fieldCount, Reduce.ReducePlan? reduce = null, Action? onDispose = null)
    {
        _reduce = reduce;
        _onDispose = onDispose;
        _tx = tx;
        _fieldCount = fieldCount;
        var missing = "The index's trees are missing: the directory is not an index.";
        _terms = tx.OpenTree(IndexLayout.Terms) ?? throw new InvalidDataException(missing);
        _entries = tx.OpenTree(IndexLayout.Entries) ?? throw new InvalidDataException(missing);
        _docs = tx.OpenTree(IndexLayout.Docs) ?? throw new InvalidDataException(missing);
        var meta = tx.OpenTree(IndexLayout.Meta) ?? throw new InvalidDataException(missing);
        LastIndexedEtag = meta.TryGet(IndexLayout.LastEtagKey, out var etag) ? IndexLayout.ReadInt64(etag) : 0;
    }

    /// <summary>The etag this view is consistent with.</summary>
    public long LastIndexedEtag { get; }

    /// <summary>A map-reduce index's groups, in group key order; null for a map index.</summary>
    public Reduce.GroupCursor? ReadGroups() =>
        _reduce == null ? null : new Reduce.GroupCursor(_reduce, _tx.OpenTree(Reduce.ReduceLayout.Groups) ?? throw new InvalidDataException("The map-reduce index's groups tree is missing."));

    /// <summary>Groups in a map-reduce index (0 for a map index).</summary>
    public long GroupCount => _reduce == null ? 0 : _tx.OpenTree(Reduce.ReduceLayout.Groups)?.Count ?? 0;

    /// <summary>Documents in the index.</summary>
    public long EntryCount => _docs.Count;

    /// <summary>The entries holding <paramref name="term"/> in <paramref name="field"/>.</summary>
    public void Lookup(int field, ReadOnlySpan<byte> term, List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        CheckField(field);
        if (term.Length > TermLimits.MaxTermBytes)
        {
            return;
        }

        var length = IndexLayout.TermKey(field, term, KeyBuffer);
        if (_terms.TryGet(KeyBuffer.AsSpan(0, length), out var value))
        {
            AppendIds(value, result);
        }
    }

    /// <summary>The entries with a term of <paramref name="field"/> in [<paramref name="from"/>, <paramref name="to"/>) (unsigned byte order).</summary>
    public void Range(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> to, List<long> result)
    {
        CheckField(field);
        var high = IndexLayout.TermKey(field, to, HighBuffer);
        Scan(field, from, HighBuffer.AsSpan(0, high), result);
    }

    /// <summary>The entries with a term of <paramref name="field"/> at or after <paramref name="from"/>.</summary>
    public void RangeFrom(int field, ReadOnlySpan<byte> from, List<long> result)
    {
        CheckField(field);
        Scan(field, from, FieldEnd(field), result);
    }

    /// <summary>The entries with a term of <paramref name="field"/> starting with <paramref name="prefix"/>.</summary>
    public void Prefix(int field, ReadOnlySpan<byte> prefix, List<long> result)
    {
        CheckField(field);
        // The first key past the prefix: drop trailing 0xFF bytes and increment the last one left.
        var end = prefix.LastIndexOfAnyExcept((byte)0xFF);
        if (end < 0)
        {
            Scan(field, prefix, FieldEnd(field), result);
            return;
        }

        var high = IndexLayout.TermKey(field, prefix[..(end + 1)], HighBuffer);
        HighBuffer[high - 1]++;
        Scan(field, prefix, HighBuffer.AsSpan(0, high), result);
    }

    /// <summary>
    /// The entries where <paramref name="field"/> has at least one value of its type (at least one term). An entry
    /// whose field is missing or null, an empty array, or only values of the wrong type does not exist for the field.
    /// </summary>
    public void Exists(int field, List<long> result) => RangeFrom(field, [], result);

    /// <summary>The entries where <paramref name="field"/> is null: missing, or null on the way or at the end of the path.</summary>
    public void Nulls(int field, List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        CheckField(field);
        var list = _tx.OpenPostingList(IndexLayout.NullsName(field));
        if (list != null)
        {
            AppendAll(list, result);
        }
    }

    /// <summary>A number field's first value in the entry's document; false when it has none.</summary>
    public bool TryReadNumber(int field, long entry, out double value)
    {
        var found = TryReadColumn(field, entry, out var bytes);
        value = found ? NumberTerm.Read(bytes) : 0;
        return found;
    }

    /// <summary>A datetime field's first value in the entry's document, as UTC ticks; false when it has none.</summary>
    public bool TryReadDateTimeTicks(int field, long entry, out long utcTicks)
    {
        var found = TryReadColumn(field, entry, out var bytes);
        utcTicks = found ? DateTimeTerm.Read(bytes) : 0;
        return found;
    }

    public bool TryGetDocumentId(long entry, out string documentId)
    {
        Span<byte> key = stackalloc byte[8];
        IndexLayout.EntryKey(entry, key);
        if (_entries.TryGet(key, out var record))
        {
            documentId = EntryRecord.DocumentId(record);
            return true;
        }

        documentId = "";
        return false;
    }

    public bool TryGetEntry(string documentId, out long entry)
    {
        ArgumentException.ThrowIfNullOrEmpty(documentId);
        var length = IndexDocumentKey.Write(documentId, KeyBuffer);
        if (length >= 0 && _docs.TryGet(KeyBuffer.AsSpan(0, length), out var value))
        {
            entry = IndexLayout.ReadInt64(value);
            return true;
        }

        entry = 0;
        return false;
    }

    /// <summary>Whether the index holds the document with this UTF-8 id, in any casing (no allocation).</summary>
    public bool ContainsDocument(ReadOnlySpan<byte> documentIdUtf8)
    {
        var length = IndexDocumentKey.Write(documentIdUtf8, KeyBuffer);
        return length >= 0 && _docs.ContainsKey(KeyBuffer.AsSpan(0, length));
    }

    /// <summary>Copies this snapshot of the index into <paramref name="backup"/> as the environment <paramref name="path"/>.</summary>
    public Task WriteBackupAsync(BackupWriter backup, string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(backup);
        ObjectDisposedException.ThrowIf(_disposed, this);
        return backup.AddEnvironmentAsync(path, _tx, cancellationToken);
    }

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        ReturnBuffers();
        _tx.Dispose();
        _onDispose?.Invoke();
    }

    private bool TryReadColumn(int field, long entry, out ReadOnlySpan<byte> bytes)
    {
        CheckField(field);
        var column = _tx.OpenFixedSizeTree(IndexLayout.ColumnName(field));
        if (column != null && column.TryGet(entry, out bytes))
        {
            return true;
        }

        bytes = default;
        return false;
    }

    private ReadOnlySpan<byte> FieldEnd(int field) => HighBuffer.AsSpan(0, IndexLayout.TermKey(field + 1, [], HighBuffer));

    /// <summary>
    /// Unions the ids of every term key in [field + from, high) into <paramref name="result"/>, ascending and distinct,
    /// without sorting the concatenation (<see cref="EntryUnion"/>): runs that follow each other stay as they are, a few
    /// runs are merged, and past a size the ids go into a bitmap over entry ids that is read back in order.
    /// </summary>
    /// <returns>False, with nothing added, when the range held more than <paramref name="maxTerms"/> terms.</returns>
    private bool Scan(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> high, List<long> result, long maxTerms = long.MaxValue)
    {
        ArgumentNullException.ThrowIfNull(result);
        var low = IndexLayout.TermKey(field, from[..Math.Min(from.Length, TermLimits.MaxTermBytes)], KeyBuffer);
        var cursor = _terms.CreateCursor();
        var union = new EntryUnion(result, MaxEntryId);
        var first = result.Count;
        long terms = 0;
        try
        {
            for (var ok = cursor.Seek(KeyBuffer.AsSpan(0, low)); ok && cursor.Key.SequenceCompareTo(high) < 0; ok = cursor.MoveNext())
            {
                if (++terms > maxTerms)
                {
                    result.RemoveRange(first, result.Count - first);
                    return false;
                }

                if (union.IsBitmap)
                {
                    VisitIds(cursor.Value, ref union);
                }
                else
                {
                    AppendIds(cursor.Value, result);
                    union.EndRun();
                }
            }

            union.Complete();
            return true;
        }
        finally
        {
            union.Dispose();
        }
    }

    private void AppendIds(ReadOnlySpan<byte> value, List<long> result)
    {
        if (value[0] == IndexLayout.InlineTag)
        {
            InlinePostings.Decode(value, result);
            return;
        }

        var list = SpilledList(value);
        AppendAll(list, result);
    }

    private void VisitIds<TSink>(ReadOnlySpan<byte> value, ref TSink sink)
        where TSink : IEntrySink, allows ref struct
    {
        var chunk = ChunkBuffer;
        if (value[0] == IndexLayout.InlineTag)
        {
            var position = 1;
            long previous = 0;
            while (position < value.Length)
            {
                var n = InlinePostings.Decode(value, ref position, ref previous, chunk);
                sink.Add(chunk.AsSpan(0, n));
            }

            return;
        }

        var list = SpilledList(value);
        var iterator = list.Iterate();
        for (var n = iterator.Fill(chunk); n > 0; n = iterator.Fill(chunk))
        {
            sink.Add(chunk.AsSpan(0, n));
        }
    }

    /// <summary>The posting list a term's value points to (not inline).</summary>
    private PostingList SpilledList(ReadOnlySpan<byte> value) =>
        _tx.OpenPostingList(IndexLayout.PostingsName(IndexLayout.ReadInt64(value[1..])))
            ?? throw new InvalidDataException("A term's posting list is missing from the index.");

    private void AppendAll(PostingList list, List<long> result)
    {
        var chunk = ChunkBuffer;
        var iterator = list.Iterate();
        for (var n = iterator.Fill(chunk); n > 0; n = iterator.Fill(chunk))
        {
            result.AddRange(chunk.AsSpan(0, n));
        }
    }

    private void CheckField(int field) => ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)field, (uint)_fieldCount, nameof(field));
}
