using System.Buffers.Binary;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Reader methods for the query executor (Ingest.Query's Execution/): every entry (for <c>not</c>), ids by prefix,
/// column keys for sorting, the rank of each entry in document id order (for <c>order by</c> the id), and what a
/// continuation token needs to resume after an entry (its smallest term in a field, its folded id).
/// </summary>
public sealed partial class IndexReader
{
    private readonly byte[] _entryKey = new byte[8];
    private long _maxEntry = -1;

    /// <summary>The highest entry id this build has assigned (0 when none): ids are dense from 1 and never reused.</summary>
    public long MaxEntryId
    {
        get
        {
            if (_maxEntry < 0)
            {
                var meta = _tx.OpenTree(IndexLayout.Meta);
                _maxEntry = meta != null && meta.TryGet(IndexLayout.NextEntryKey, out var next) ? IndexLayout.ReadInt64(next) - 1 : 0;
            }

            return _maxEntry;
        }
    }

    /// <summary>Every entry of the index, ascending.</summary>
    public void AllEntries(List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        result.EnsureCapacity(result.Count + (int)Math.Min(int.MaxValue / 2, _docs.Count));
        var cursor = _entries.CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            result.Add(BinaryPrimitives.ReadInt64BigEndian(cursor.Key));
        }
    }

    /// <summary>The entries whose document id starts with <paramref name="prefix"/>, in any casing (ids fold as the store folds them), ascending.</summary>
    public void DocumentIdPrefix(ReadOnlySpan<char> prefix, List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var length = IndexDocumentKey.Write(prefix, KeyBuffer);
        if (length < 0)
        {
            return;
        }

        var first = result.Count;
        var folded = KeyBuffer.AsSpan(0, length);
        var cursor = _docs.CreateCursor();
        for (var ok = cursor.Seek(folded); ok && cursor.Key.StartsWith(folded); ok = cursor.MoveNext())
        {
            result.Add(IndexLayout.ReadInt64(cursor.Value));
        }

        System.Runtime.InteropServices.CollectionsMarshal.AsSpan(result)[first..].Sort();
    }

    /// <summary>
    /// Each entry's column key (the 8 order-preserving bytes as a big-endian integer) into <paramref name="keys"/>, 0
    /// where it has none (no encoding writes 0); entries ascending. One ordered walk of the column.
    /// </summary>
    public int ReadColumnSortKeys(int field, ReadOnlySpan<long> entries, Span<ulong> keys) => ReadColumnKeys(field, entries, keys);

    /// <summary>
    /// Sets <c>ranks[entry]</c> to <c>2i + 1</c> for the entry whose folded document id is the i-th in byte order; with an
    /// <paramref name="anchor"/> folded id, <paramref name="anchorRank"/> as its rank if the index has it, else the even rank between its neighbours, so keyset resumption works across new ids.
    /// </summary>
    public void RankDocumentIds(ulong[] ranks, ReadOnlySpan<byte> anchor, bool hasAnchor, out ulong anchorRank)
    {
        ArgumentNullException.ThrowIfNull(ranks);
        var cursor = _docs.CreateCursor();
        ulong index = 0;
        anchorRank = 0;
        var anchorPlaced = !hasAnchor;
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var rank = (2 * index) + 1;
            if (!anchorPlaced)
            {
                var order = cursor.Key.SequenceCompareTo(anchor);
                if (order >= 0)
                {
                    anchorRank = order == 0 ? rank : rank - 1;
                    anchorPlaced = true;
                }
            }

            var entry = IndexLayout.ReadInt64(cursor.Value);
            if ((ulong)entry < (ulong)ranks.Length)
            {
                ranks[entry] = rank;
            }

            index++;
        }

        if (!anchorPlaced)
        {
            anchorRank = 2 * index;
        }
    }

    /// <summary>The smallest term an entry holds in <paramref name="field"/> (its sort key for keyword order), copied into <paramref name="term"/>.</summary>
    public bool TryReadFirstTerm(long entry, int field, out byte[] term)
    {
        CheckField(field);
        if (TryFindFirstTerm(entry, field, out var first))
        {
            term = first.ToArray();
            return true;
        }

        term = [];
        return false;
    }

    /// <summary>The smallest term <paramref name="entry"/> holds in <paramref name="field"/>, as a slice of its record (valid while this reader is).</summary>
    private bool TryFindFirstTerm(long entry, int field, out ReadOnlySpan<byte> term)
    {
        term = default;
        if (!TryGetEntryRecord(entry, out var record))
        {
            return false;
        }

        var position = 0;
        var idLength = (int)VarInt.Read(record, ref position);
        position += idLength;
        while (position < record.Length)
        {
            var f = (int)VarInt.Read(record, ref position);
            var count = (int)(VarInt.Read(record, ref position) >> 1);
            if (f == field && count == 0)
            {
                return false;
            }

            for (var i = 0; i < count; i++)
            {
                var shared = (int)VarInt.Read(record, ref position);
                var suffix = (int)VarInt.Read(record, ref position);
                if (f == field)
                {
                    // A field's first term shares nothing with the previous field's terms (the encoder restarts per field).
                    term = record.Slice(position + shared, suffix);
                    return true;
                }

                position += suffix;
            }
        }

        return false;
    }

    /// <summary>
    /// The entry's document id as it was put (UTF-8, pointing into the snapshot's pages: valid while the reader is),
    /// without the string <see cref="TryGetDocumentId"/> makes.
    /// </summary>
    public bool TryReadDocumentId(long entry, out ReadOnlySpan<byte> documentIdUtf8)
    {
        documentIdUtf8 = default;
        if (!TryGetEntryRecord(entry, out var record))
        {
            return false;
        }

        var position = 0;
        var idLength = (int)VarInt.Read(record, ref position);
        documentIdUtf8 = record.Slice(position, idLength);
        return true;
    }

    /// <summary>The entry's document id folded as the "docs" tree keys it (for order by id and for checking a continuation's anchor).</summary>
    public bool TryReadDocumentKey(long entry, out byte[] documentKey)
    {
        documentKey = [];
        if (!TryGetEntryRecord(entry, out var record))
        {
            return false;
        }

        var position = 0;
        var idLength = (int)VarInt.Read(record, ref position);
        var length = IndexDocumentKey.Write(record.Slice(position, idLength), KeyBuffer);
        if (length < 0)
        {
            return false;
        }

        documentKey = KeyBuffer.AsSpan(0, length).ToArray();
        return true;
    }

    private bool TryGetEntryRecord(long entry, out ReadOnlySpan<byte> record)
    {
        IndexLayout.EntryKey(entry, _entryKey);
        return _entries.TryGet(_entryKey, out record);
    }
}
