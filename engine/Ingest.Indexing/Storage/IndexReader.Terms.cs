using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Storage;

/// <summary>Term enumeration and bulk column reads for facets, grouping and sorting over a match set.</summary>
public sealed partial class IndexReader
{
    /// <summary>Raw column value meaning "no value": the bytes of a NaN number key and of negative ticks, which no encoding writes.</summary>
    private const ulong NoColumnValue = 0;

    /// <summary>
    /// The largest gap between entry ids that the column cursor walks rather than seeks: a step costs about two page
    /// lookups, a seek a descent of about three levels with a binary search in each, so a walk wins only over short gaps.
    /// </summary>
    private const long ColumnWalkGap = 4;

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

    /// <summary><see cref="NumberTerm.Read"/> of a key already read as an integer.</summary>
    private static double DecodeNumberKey(ulong key) =>
        BitConverter.Int64BitsToDouble((long)((key & 0x8000_0000_0000_0000UL) != 0 ? key & 0x7FFF_FFFF_FFFF_FFFFUL : ~key));

    /// <summary>Each entry's column key as a big-endian integer, <see cref="NoColumnValue"/> where it has none.</summary>
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

        var cursor = column.CreateCursor();
        var valid = cursor.Seek(entries[0]);
        var key = valid ? cursor.Key : long.MaxValue;
        var found = 0;
        for (var i = 0; i < entries.Length && valid; i++)
        {
            var entry = entries[i];
            if (entry - key > ColumnWalkGap)
            {
                valid = cursor.Seek(entry);
                key = valid ? cursor.Key : long.MaxValue;
            }

            while (key < entry)
            {
                valid = cursor.MoveNext();
                key = valid ? cursor.Key : long.MaxValue;
            }

            if (key == entry)
            {
                keys[i] = BinaryPrimitives.ReadUInt64BigEndian(cursor.Value);
                found++;
            }
        }

        return found;
    }
}
