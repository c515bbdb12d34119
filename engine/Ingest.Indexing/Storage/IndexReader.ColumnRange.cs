using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Storage;

/// <summary>A range over a number or datetime field read from its column when the range holds most of its terms.</summary>
public sealed partial class IndexReader
{
    /// <summary>
    /// <see cref="Range"/> (or, with <paramref name="hasTo"/> false, <see cref="RangeFrom"/>) for a number or datetime
    /// field whose entries hold at most one value (a path that visits no array): then an entry's column value is its
    /// only term, and the field's column, read in entry order, answers the range with no union at all. The terms are
    /// walked first; once the range has held a quarter of the column's entries in terms (a term costs a cursor step, a
    /// posting read and a bit in the union, a column value a fixed-size step and a compare), the column is read instead.
    /// </summary>
    public void RangeOfSingleValues(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> to, bool hasTo, List<long> result) =>
        RangeOfSingleValues(field, from, to, hasTo, result, null);

    /// <summary>
    /// <see cref="RangeOfSingleValues(int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, bool, List{long})"/> for a caller that
    /// then reads the field's column for the matches (a <c>time()</c> key, a sum over the range's field): when the column
    /// is walked, each match's column key (big-endian integer, as <see cref="ReadDateTimeTicks"/> and
    /// <see cref="ReadNumbers"/> decode it) is appended to <paramref name="columnKeys"/>, which is then as long as the
    /// added matches, whichever answers: the column walked, or the terms (each term is its entries' column key, see
    /// <see cref="ScanWithKeys"/>); it stays empty only when the field has no column. The column is walked once the
    /// terms pass 1/<see cref="ColumnShare"/> of its entries (at least 1,024 terms).
    /// </summary>
    public void RangeOfSingleValues(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> to, bool hasTo, List<long> result, List<long>? columnKeys)
    {
        ArgumentNullException.ThrowIfNull(result);
        CheckField(field);
        var column = _tx.OpenFixedSizeTree(IndexLayout.ColumnName(field));
        var high = hasTo ? HighBuffer.AsSpan(0, IndexLayout.TermKey(field, to, HighBuffer)) : FieldEnd(field);
        if (column == null)
        {
            Scan(field, from, high, result);
            return;
        }

        var maxTerms = Math.Max(1024, column.Count / ColumnShare);
        if (columnKeys == null ? Scan(field, from, high, result, maxTerms) : ScanWithKeys(field, from, high, result, columnKeys, maxTerms))
        {
            return;
        }

        // Column values are 8-byte terms, compared as big-endian integers: [from, to) becomes [low, high) over them.
        var low = SmallestKeyAtOrAfter(from);
        var end = hasTo ? SmallestKeyAtOrAfter(to) : UInt128.MaxValue;
        // A block of entries at a time, copied a leaf at a time (FixedSizeTreeCursor.Fill): no per-entry cursor checks.
        var cursor = column.CreateCursor();
        Span<long> entries = stackalloc long[ColumnBlock];
        Span<byte> values = stackalloc byte[ColumnBlock * sizeof(ulong)];
        if (!cursor.First())
        {
            return;
        }

        for (int n; (n = cursor.Fill(entries, values)) > 0;)
        {
            for (var i = 0; i < n; i++)
            {
                var value = (UInt128)BinaryPrimitives.ReadUInt64BigEndian(values.Slice(i * sizeof(ulong), sizeof(ulong)));
                if (value >= low && value < end)
                {
                    result.Add(entries[i]);
                    columnKeys?.Add((long)(ulong)value);
                }
            }
        }
    }

    /// <summary>
    /// The term walk of <see cref="RangeOfSingleValues(int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, bool, List{long}, List{long}?)"/>
    /// with each match's column key: a number or datetime term is the 8 bytes its column holds, and an entry of a
    /// single-valued field is under one term only, so no union is needed: each term's entries are appended packed with
    /// the term's number in the walk, put in entry order (<see cref="EntryKeySort"/>), then unpacked with the term's key.
    /// The aggregation then reads that column no more: a probe per match in a column of 1,000,000 entries (a cache miss
    /// each) was a quarter of a month's time histogram. False, with nothing added, past <paramref name="maxTerms"/> terms,
    /// or when an entry id and a term number do not fit in one long together (then the column answers).
    /// </summary>
    private bool ScanWithKeys(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> high, List<long> result, List<long> columnKeys, long maxTerms)
    {
        var termBits = EntryKeySort.BitsOf(maxTerms);
        var entryBits = EntryKeySort.BitsOf(MaxEntryId);
        if (termBits + entryBits > 62)
        {
            return false;
        }

        var low = IndexLayout.TermKey(field, from[..Math.Min(from.Length, TermLimits.MaxTermBytes)], KeyBuffer);
        var cursor = _terms.CreateCursor();
        var first = result.Count;
        var termKeys = ArrayPool<long>.Shared.Rent(1024);
        var terms = 0;
        try
        {
            for (var ok = cursor.Seek(KeyBuffer.AsSpan(0, low)); ok && cursor.Key.SequenceCompareTo(high) < 0; ok = cursor.MoveNext())
            {
                if (terms == maxTerms)
                {
                    result.RemoveRange(first, result.Count - first);
                    return false;
                }

                if (terms == termKeys.Length)
                {
                    var grown = ArrayPool<long>.Shared.Rent(terms * 2);
                    termKeys.AsSpan(0, terms).CopyTo(grown);
                    ArrayPool<long>.Shared.Return(termKeys);
                    termKeys = grown;
                }

                termKeys[terms] = (long)BinaryPrimitives.ReadUInt64BigEndian(cursor.Key.Slice(IndexLayout.FieldPrefixSize, sizeof(ulong)));
                var value = cursor.Value;
                if (value[0] == IndexLayout.InlineTag)
                {
                    // Most terms of a datetime or number hold a few entries, inline: decode them packed, no second pass.
                    var position = 1;
                    long id = 0;
                    while (position < value.Length)
                    {
                        id += (long)VarInt.Read(value, ref position);
                        result.Add((id << termBits) | (long)terms);
                    }
                }
                else
                {
                    var before = result.Count;
                    AppendIds(value, result);
                    foreach (ref var id in CollectionsMarshal.AsSpan(result)[before..])
                    {
                        id = (id << termBits) | (long)terms;
                    }
                }

                terms++;
            }

            var packed = CollectionsMarshal.AsSpan(result)[first..];
            EntryKeySort.Sort(packed, termBits, entryBits);
            var termMask = (1L << termBits) - 1;
            var firstKey = columnKeys.Count;
            CollectionsMarshal.SetCount(columnKeys, firstKey + packed.Length);
            var keys = CollectionsMarshal.AsSpan(columnKeys)[firstKey..];
            var n = 0;
            var last = -1L;
            foreach (var item in packed)
            {
                var entry = item >> termBits;
                if (entry != last) // never repeated in a single-valued field, but a union must not repeat one
                {
                    keys[n] = termKeys[item & termMask];
                    packed[n++] = entry;
                    last = entry;
                }
            }

            CollectionsMarshal.SetCount(result, first + n);
            CollectionsMarshal.SetCount(columnKeys, firstKey + n);
            return true;
        }
        finally
        {
            ArrayPool<long>.Shared.Return(termKeys);
        }
    }

    /// <summary>
    /// The share of a column's entries in terms past which a range walks the column instead (1/4), with or without the
    /// values handed to an aggregation. Not sooner for an aggregation either: the terms are walked up to the threshold
    /// before the column is, so the column must beat the rest of the terms and a probe per match. With the cursor's page
    /// lookup per entry (about 250 ns) a 1/32 share made the 20,000-order histogram 6.2 and 7.1 ms against 0.8 and 1.2
    /// ms; with the column read a leaf at a time (FixedSizeTreeCursor.Fill) 1/16 and 1/32 still lost to 1/4 there
    /// (1.3-1.5 and 1.0-1.5 ms against 0.7-0.9 ms, three alternating quick runs at load 10-15). Over 1,000,000 orders
    /// (a month: 1/12 of the column) 1/16 and 1/4 cost the same CPU per query (12-13 ms); since the term walk hands its
    /// terms over as values too (no column probe per match) it is the cheaper of the two there (10 ms).
    /// </summary>
    private const int ColumnShare = 4;

    /// <summary>Column entries read per <see cref="Ingest.Storage.FixedSizeTrees.FixedSizeTreeCursor.Fill"/> (8 KiB of values on the stack).</summary>
    private const int ColumnBlock = 1024;

    /// <summary>
    /// The smallest 8-byte key at or after <paramref name="bound"/> in byte order: a shorter bound padded with zeros; a
    /// longer one (an exclusive end, which appends a 0 byte) is passed by its first 8 bytes themselves, so one more.
    /// </summary>
    private static UInt128 SmallestKeyAtOrAfter(ReadOnlySpan<byte> bound)
    {
        Span<byte> padded = stackalloc byte[8];
        padded.Clear();
        bound[..Math.Min(8, bound.Length)].CopyTo(padded);
        var key = (UInt128)BinaryPrimitives.ReadUInt64BigEndian(padded);
        return bound.Length > 8 ? key + 1 : key;
    }
}
