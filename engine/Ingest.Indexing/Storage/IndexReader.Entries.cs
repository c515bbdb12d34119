using System.Buffers.Binary;
using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Reader methods for the query executor (Ingest.Query's Execution/): every entry (for <c>not</c>), ids by prefix,
/// columns opened once per query, and the rank of each entry in a field's term order or in document id order (for
/// <c>order by</c> a keyword or the id), plus what a continuation token needs to resume after an entry.
/// </summary>
public sealed partial class IndexReader
{
    private long _maxEntry = -1;

    /// <summary>The highest entry id this build has assigned (0 when none): ids are dense from 1 and never reused.</summary>
    internal long MaxEntryId
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
    internal void AllEntries(List<long> result)
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
    internal void DocumentIdPrefix(ReadOnlySpan<char> prefix, List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var length = IndexLayout.DocumentKey(prefix, _key);
        if (length < 0)
        {
            return;
        }

        var first = result.Count;
        var folded = _key.AsSpan(0, length);
        var cursor = _docs.CreateCursor();
        for (var ok = cursor.Seek(folded); ok && cursor.Key.StartsWith(folded); ok = cursor.MoveNext())
        {
            result.Add(IndexLayout.ReadInt64(cursor.Value));
        }

        System.Runtime.InteropServices.CollectionsMarshal.AsSpan(result)[first..].Sort();
    }

    /// <summary>A number or datetime field's column (entry -> 8-byte order-preserving term), or null when no entry has a value.</summary>
    internal FixedSizeTree? OpenColumn(int field)
    {
        CheckField(field);
        return _tx.OpenFixedSizeTree(IndexLayout.ColumnName(field));
    }

    /// <summary>
    /// Sets <c>ranks[entry]</c> to <c>2i + 1</c> for the i-th term of <paramref name="field"/> (in term order) that the
    /// entry holds first, so an entry ranks by its smallest term; entries without a term keep 0. With an
    /// <paramref name="anchor"/> term, <paramref name="anchorRank"/> is its rank if the field has it, else the even rank
    /// between its neighbours (<c>2i</c> for the first term above it), so keyset resumption works across new terms.
    /// </summary>
    internal void RankTerms(int field, ulong[] ranks, ReadOnlySpan<byte> anchor, bool hasAnchor, List<long> scratch, out ulong anchorRank)
    {
        ArgumentNullException.ThrowIfNull(ranks);
        ArgumentNullException.ThrowIfNull(scratch);
        CheckField(field);
        var low = IndexLayout.TermKey(field, [], _key);
        var end = FieldEnd(field);
        var cursor = _terms.CreateCursor();
        ulong index = 0;
        anchorRank = 0;
        var anchorPlaced = !hasAnchor;
        for (var ok = cursor.Seek(_key.AsSpan(0, low)); ok && cursor.Key.SequenceCompareTo(end) < 0; ok = cursor.MoveNext())
        {
            var rank = (2 * index) + 1;
            if (!anchorPlaced)
            {
                var order = cursor.Key[IndexLayout.FieldPrefixSize..].SequenceCompareTo(anchor);
                if (order >= 0)
                {
                    anchorRank = order == 0 ? rank : rank - 1;
                    anchorPlaced = true;
                }
            }

            scratch.Clear();
            AppendIds(cursor.Value, scratch);
            foreach (var entry in scratch)
            {
                if ((ulong)entry < (ulong)ranks.Length && ranks[entry] == 0)
                {
                    ranks[entry] = rank;
                }
            }

            index++;
        }

        if (!anchorPlaced)
        {
            anchorRank = 2 * index;
        }
    }

    /// <summary>
    /// Sets <c>ranks[entry]</c> to <c>2i + 1</c> for the entry whose folded document id is the i-th in byte order; with an
    /// <paramref name="anchor"/> folded id, <paramref name="anchorRank"/> as <see cref="RankTerms"/> places it.
    /// </summary>
    internal void RankDocumentIds(ulong[] ranks, ReadOnlySpan<byte> anchor, bool hasAnchor, out ulong anchorRank)
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
    internal bool TryReadFirstTerm(long entry, int field, out byte[] term)
    {
        CheckField(field);
        term = [];
        Span<byte> key = stackalloc byte[8];
        IndexLayout.EntryKey(entry, key);
        if (!_entries.TryGet(key, out var record))
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
            for (var i = 0; i < count; i++)
            {
                var shared = (int)VarInt.Read(record, ref position);
                var suffix = (int)VarInt.Read(record, ref position);
                if (f == field && i == 0)
                {
                    // A field's first term shares nothing with the previous field's terms (the encoder restarts per field).
                    term = record.Slice(position + shared, suffix).ToArray();
                    return true;
                }

                position += suffix;
            }
        }

        return false;
    }

    /// <summary>The entry's document id folded as the "docs" tree keys it (for order by id and for checking a continuation's anchor).</summary>
    internal bool TryReadDocumentKey(long entry, out byte[] documentKey)
    {
        documentKey = [];
        Span<byte> key = stackalloc byte[8];
        IndexLayout.EntryKey(entry, key);
        if (!_entries.TryGet(key, out var record))
        {
            return false;
        }

        var position = 0;
        var idLength = (int)VarInt.Read(record, ref position);
        var length = IndexLayout.DocumentKey(record.Slice(position, idLength), _key);
        if (length < 0)
        {
            return false;
        }

        documentKey = _key.AsSpan(0, length).ToArray();
        return true;
    }
}
