using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Ingest.Indexing.Storage;

/// <summary>
/// The keyword fields' ordinal columns (layout in <see cref="IndexLayout"/>): each entry's term numbers read for a
/// whole match set in one ordered walk, and a number's term, so facets and <c>group by</c> cost per match and per group
/// instead of per indexed entry.
/// </summary>
public sealed partial class IndexReader
{
    private Ingest.Storage.Trees.Tree? _ordinalTerms;
    private readonly byte[] _ordinalKey = new byte[8];

    /// <summary>
    /// Whether this build has ordinal columns for its keyword fields (storage format 2). An older build answers facets
    /// and groups from its term dictionary until its side-by-side rebuild replaces it.
    /// </summary>
    public bool HasOrdinals { get; internal init; }

    /// <summary>One past the highest term number keyword field <paramref name="field"/> has given out (1 when none).</summary>
    public uint OrdinalLimit(int field)
    {
        CheckField(field);
        var meta = _tx.OpenTree(IndexLayout.Meta);
        return meta != null && meta.TryGet(IndexLayout.OrdinalNextKey, out var next) && next.Length >= 4 * (field + 1)
            ? BinaryPrimitives.ReadUInt32LittleEndian(next[(4 * field)..])
            : 1;
    }

    /// <summary>
    /// Each entry's ordinal column value for <paramref name="entries"/> (ascending) into <paramref name="values"/> (same
    /// length): <c>first term number | term count &lt;&lt; 32</c>, 0 where the entry holds no term of the field. One
    /// forward walk of the column's leaves. Returns how many entries had a value.
    /// </summary>
    public int ReadOrdinals(int field, ReadOnlySpan<long> entries, Span<ulong> values)
    {
        CheckField(field);
        if (values.Length != entries.Length)
        {
            throw new ArgumentException("One value per entry is needed.", nameof(values));
        }

        values.Clear();
        var column = _tx.OpenFixedSizeTree(IndexLayout.OrdinalsName(field));
        if (column == null || entries.IsEmpty)
        {
            return 0;
        }

        var found = column.GetSorted(entries, MemoryMarshal.AsBytes(values));
        if (!BitConverter.IsLittleEndian)
        {
            BinaryPrimitives.ReverseEndianness(values, values);
        }

        return found;
    }

    /// <summary>
    /// Every term number of a multi-valued entry (term count over 1 in its column value) into <paramref name="numbers"/>,
    /// ascending; returns how many (0 when the entry has no set, or <paramref name="numbers"/> is too short: then minus the count needed).
    /// </summary>
    public int ReadOrdinalSet(int field, long entry, Span<uint> numbers)
    {
        CheckField(field);
        var sets = _tx.OpenTree(IndexLayout.OrdinalSetsName(field));
        IndexLayout.EntryKey(entry, _ordinalKey);
        if (sets == null || !sets.TryGet(_ordinalKey, out var value))
        {
            return 0;
        }

        var count = value.Length / 4;
        if (count > numbers.Length)
        {
            return -count;
        }

        for (var i = 0; i < count; i++)
        {
            numbers[i] = BinaryPrimitives.ReadUInt32LittleEndian(value[(4 * i)..]);
        }

        return count;
    }

    /// <summary>The encoded term of keyword field <paramref name="field"/>'s term number; valid until the reader moves on.</summary>
    public bool TryReadOrdinalTerm(int field, uint number, out ReadOnlySpan<byte> term)
    {
        CheckField(field);
        _ordinalTerms ??= _tx.OpenTree(IndexLayout.OrdinalTerms);
        IndexLayout.OrdinalTermKey(field, number, _ordinalKey);
        if (_ordinalTerms != null && _ordinalTerms.TryGet(_ordinalKey.AsSpan(0, IndexLayout.FieldPrefixSize + 4), out term))
        {
            return true;
        }

        term = default;
        return false;
    }
}
