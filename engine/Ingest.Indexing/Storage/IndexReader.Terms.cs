using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Storage;

/// <summary>Term enumeration and bulk column reads for facets, grouping and sorting over a match set.</summary>
public sealed partial class IndexReader
{
    /// <summary>Raw column value meaning "no value": the bytes of a NaN number key and of negative ticks, which no encoding writes.</summary>
    private const ulong NoColumnValue = 0;

    /// <summary>The terms of <paramref name="field"/> in byte order, positioned before the first.</summary>
    public TermEnumerator EnumerateTerms(int field)
    {
        CheckField(field);
        return new TermEnumerator(this, field);
    }

    /// <summary>
    /// A number field's first value for each of <paramref name="entries"/> (ascending) into <paramref name="values"/>
    /// (same length), NaN where an entry has none; returns how many had one. One ordered walk of the column.
    /// </summary>
    public int ReadNumbers(int field, ReadOnlySpan<long> entries, Span<double> values)
    {
        var raw = MemoryMarshal.Cast<double, ulong>(values);
        var found = ReadColumnKeys(field, entries, raw);
        for (var i = 0; i < raw.Length; i++)
        {
            values[i] = raw[i] == NoColumnValue ? double.NaN : DecodeNumberKey(raw[i]);
        }

        return found;
    }

    /// <summary>
    /// A datetime field's first value for each of <paramref name="entries"/> (ascending) as UTC ticks into
    /// <paramref name="utcTicks"/> (same length), -1 where an entry has none; returns how many had one.
    /// </summary>
    public int ReadDateTimeTicks(int field, ReadOnlySpan<long> entries, Span<long> utcTicks)
    {
        var raw = MemoryMarshal.Cast<long, ulong>(utcTicks);
        var found = ReadColumnKeys(field, entries, raw);
        for (var i = 0; i < raw.Length; i++)
        {
            utcTicks[i] = raw[i] == NoColumnValue ? -1 : (long)(raw[i] ^ 0x8000_0000_0000_0000UL);
        }

        return found;
    }

    /// <summary>The value of a number field's term (as <see cref="TermEnumerator.Term"/> gives it).</summary>
    public static double DecodeNumberTerm(ReadOnlySpan<byte> term) => NumberTerm.Read(term);

    /// <summary>The UTC ticks of a datetime field's term.</summary>
    public static long DecodeDateTimeTerm(ReadOnlySpan<byte> term) => DateTimeTerm.Read(term);

    /// <summary>A number column's key (as <see cref="RangeOfSingleValues(int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, bool, List{long}, List{long}?)"/> gives it) as its value.</summary>
    public static double DecodeNumberColumnKey(long key) => DecodeNumberKey((ulong)key);

    /// <summary>A datetime column's key as UTC ticks.</summary>
    public static long DecodeDateTimeColumnKey(long key) => (long)((ulong)key ^ 0x8000_0000_0000_0000UL);

    /// <summary><see cref="NumberTerm.Read"/> of a key already read as an integer.</summary>
    private static double DecodeNumberKey(ulong key) =>
        BitConverter.Int64BitsToDouble((long)((key & 0x8000_0000_0000_0000UL) != 0 ? key & 0x7FFF_FFFF_FFFF_FFFFUL : ~key));

    /// <summary>
    /// Each entry's column key as a big-endian integer, <see cref="NoColumnValue"/> where it has none: one forward walk
    /// of the column's leaves (<see cref="Ingest.Storage.FixedSizeTrees.FixedSizeTree.GetSorted"/>), not a seek per entry.
    /// </summary>
    private int ReadColumnKeys(int field, ReadOnlySpan<long> entries, Span<ulong> keys)
    {
        CheckField(field);
        if (keys.Length != entries.Length)
        {
            throw new ArgumentException("One value per entry is needed.", nameof(keys));
        }

        keys.Clear();
        var column = _tx.OpenFixedSizeTree(IndexLayout.ColumnName(field));
        if (column == null || entries.IsEmpty)
        {
            return 0;
        }

        // The column's values are the 8 key bytes big-endian: read them in place, then turn them into integers.
        var found = column.GetSorted(entries, MemoryMarshal.AsBytes(keys));
        if (BitConverter.IsLittleEndian)
        {
            BinaryPrimitives.ReverseEndianness(keys, keys);
        }

        return found;
    }
}
