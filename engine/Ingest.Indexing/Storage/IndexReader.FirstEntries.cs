using System.Buffers;
using System.Buffers.Binary;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>The first entries of a range in entry order, and its size, without building the match set.</summary>
public sealed partial class IndexReader
{
    /// <summary>
    /// <see cref="RangeOfSingleValues(int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, bool, List{long})"/> for a page in
    /// entry order: appends only the <paramref name="count"/> smallest matching entries above <paramref name="after"/>
    /// (ascending) to <paramref name="result"/> and returns how many entries the range holds in all. A single-valued
    /// field gives each entry one term, so the terms' lists are counted as they are read and need no union: a bounded
    /// heap keeps the page (no sort of the matches, no list of them). Past a quarter of the column's entries in terms
    /// the column is walked instead, as the plain overload does, and its matches come in entry order already.
    /// </summary>
    public long FirstOfRangeOfSingleValues(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> to, bool hasTo, long after, int count, List<long> result)
    {
        ArgumentNullException.ThrowIfNull(result);
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        CheckField(field);
        var column = _tx.OpenFixedSizeTree(IndexLayout.ColumnName(field));
        var high = hasTo ? HighBuffer.AsSpan(0, IndexLayout.TermKey(field, to, HighBuffer)) : FieldEnd(field);
        var maxTerms = column == null ? long.MaxValue : Math.Max(1024, column.Count / 4);
        var heap = ArrayPool<long>.Shared.Rent(Math.Max(1, count));
        try
        {
            var smallest = new SmallestEntries(heap, count, after);
            if (VisitTerms(field, from, high, maxTerms, ref smallest))
            {
                smallest.AppendTo(result);
                return smallest.Count;
            }
        }
        finally
        {
            ArrayPool<long>.Shared.Return(heap);
        }

        return FirstOfColumnRange(column!, from, hasTo ? to : default, hasTo, after, count, result);
    }

    /// <summary>
    /// Hands the ids of every term key in [field + from, high) to <paramref name="sink"/>, a term's list at a time;
    /// false, with the sink partly fed, when the range holds more than <paramref name="maxTerms"/> terms.
    /// </summary>
    private bool VisitTerms<TSink>(int field, ReadOnlySpan<byte> from, ReadOnlySpan<byte> high, long maxTerms, ref TSink sink)
        where TSink : struct, IEntrySink
    {
        var low = IndexLayout.TermKey(field, from[..Math.Min(from.Length, Terms.TermLimits.MaxTermBytes)], KeyBuffer);
        var cursor = _terms.CreateCursor();
        if (!cursor.Seek(KeyBuffer.AsSpan(0, low)))
        {
            return true;
        }

        var visitor = new TermIds<TSink>(this, ref sink, maxTerms);
        cursor.VisitForward(high, ref visitor);
        return visitor.Terms <= maxTerms;
    }

    /// <summary>Hands each term's ids to the sink as <see cref="TreeCursor.VisitForward"/> walks the terms a leaf at a time; stops past a term count.</summary>
    private ref struct TermIds<TSink>(IndexReader reader, ref TSink sink, long maxTerms) : ITreeEntryVisitor
        where TSink : struct, IEntrySink
    {
        private readonly ref TSink _sink = ref sink;

        public long Terms { get; private set; }

        public bool Visit(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            if (++Terms > maxTerms)
            {
                return false;
            }

            if (value[0] != IndexLayout.InlineTag)
            {
                reader.VisitIds(value, ref _sink);
                return true;
            }

            // Most terms of a single-valued field hold one entry or a few, inline: each goes to the sink as it is
            // decoded, without a pass through the reader's chunk (a third of the walk's time per term).
            var position = 1;
            long entry = 0;
            while (position < value.Length)
            {
                entry += (long)VarInt.Read(value, ref position);
                _sink.Add(new ReadOnlySpan<long>(in entry));
            }

            return true;
        }
    }

    /// <summary>The column walk of <see cref="FirstOfRangeOfSingleValues"/>: every match counted, the first ones kept.</summary>
    private static long FirstOfColumnRange(Ingest.Storage.FixedSizeTrees.FixedSizeTree column, ReadOnlySpan<byte> from, ReadOnlySpan<byte> to, bool hasTo, long after, int count, List<long> result)
    {
        var low = SmallestKeyAtOrAfter(from);
        var end = hasTo ? SmallestKeyAtOrAfter(to) : UInt128.MaxValue;
        var cursor = column.CreateCursor();
        Span<long> entries = stackalloc long[ColumnBlock];
        Span<byte> values = stackalloc byte[ColumnBlock * sizeof(ulong)];
        long total = 0;
        var kept = 0;
        if (!cursor.First())
        {
            return 0;
        }

        for (int n; (n = cursor.Fill(entries, values)) > 0;)
        {
            for (var i = 0; i < n; i++)
            {
                var value = (UInt128)BinaryPrimitives.ReadUInt64BigEndian(values.Slice(i * sizeof(ulong), sizeof(ulong)));
                if (value >= low && value < end)
                {
                    total++;
                    if (kept < count && entries[i] > after)
                    {
                        result.Add(entries[i]);
                        kept++;
                    }
                }
            }
        }

        return total;
    }
}
