using System.Buffers.Binary;
using Ingest.Indexing.Terms;
using Ingest.Storage.PostingLists;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Term walks for <c>order by F limit k</c>: a field's terms in value order, either way, each term's entries ascending
/// (the tie order), so the query executor stops after k matches instead of ordering every match.
/// </summary>
public sealed partial class IndexReader
{
    /// <summary>
    /// Hands the terms of <paramref name="field"/> and their entries to <paramref name="sink"/> in term order, ascending
    /// or <paramref name="descending"/>, until the sink returns false or the field's terms end. With
    /// <paramref name="hasStart"/> the walk begins at <paramref name="start"/> (the first term at or after it, or at or
    /// before it when descending), and if that term is <paramref name="start"/> itself its entries up to
    /// <paramref name="afterEntry"/> are left out: a keyset resumption after (start, afterEntry).
    /// </summary>
    public void WalkTerms<TSink>(int field, ReadOnlySpan<byte> start, bool hasStart, bool descending, long afterEntry, ref TSink sink)
        where TSink : ITermEntrySink, allows ref struct
    {
        CheckField(field);
        start = start[..Math.Min(start.Length, TermLimits.MaxTermBytes)];
        var cursor = _terms.CreateCursor();
        bool ok;
        if (!descending)
        {
            ok = cursor.Seek(KeyBuffer.AsSpan(0, IndexLayout.TermKey(field, hasStart ? start : [], KeyBuffer)));
        }
        else
        {
            // The last key at or before the start: the first key at or after it, stepped back unless it is the start.
            var key = hasStart ? KeyBuffer.AsSpan(0, IndexLayout.TermKey(field, start, KeyBuffer)) : FieldEnd(field);
            ok = cursor.Seek(key);
            ok = !ok ? cursor.Last() : !hasStart || cursor.Key.SequenceCompareTo(key) > 0 ? cursor.MovePrev() : ok;
        }

        var first = true;
        while (ok && BinaryPrimitives.ReadUInt16BigEndian(cursor.Key) == field)
        {
            var term = cursor.Key[IndexLayout.FieldPrefixSize..];
            var from = first && hasStart && term.SequenceEqual(start) ? afterEntry + 1 : 0;
            first = false;
            if (!WalkTerm(term, cursor.Value, from, ref sink))
            {
                return;
            }

            ok = descending ? cursor.MovePrev() : cursor.MoveNext();
        }
    }

    /// <summary>
    /// Whether <paramref name="term"/> is the smallest term <paramref name="entry"/> holds in <paramref name="field"/>
    /// (its sort key for keyword order), read from the entry's record without copying.
    /// </summary>
    public bool IsFirstTerm(long entry, int field, ReadOnlySpan<byte> term)
    {
        CheckField(field);
        return TryFindFirstTerm(entry, field, out var first) && first.SequenceEqual(term);
    }

    /// <summary>One term's entries from <paramref name="from"/> on, a chunk at a time; false when the sink stopped.</summary>
    private bool WalkTerm<TSink>(ReadOnlySpan<byte> term, ReadOnlySpan<byte> value, long from, ref TSink sink)
        where TSink : ITermEntrySink, allows ref struct
    {
        var buffer = ChunkBuffer;
        if (value[0] == IndexLayout.InlineTag)
        {
            var position = 1;
            long previous = 0;
            while (position < value.Length)
            {
                var n = InlinePostings.Decode(value, ref position, ref previous, buffer);
                var chunk = buffer.AsSpan(0, n);
                if (from > 0)
                {
                    var skip = 0;
                    while (skip < chunk.Length && chunk[skip] < from)
                    {
                        skip++;
                    }

                    chunk = chunk[skip..];
                }

                if (!chunk.IsEmpty && !sink.Add(term, chunk))
                {
                    return false;
                }
            }

            return true;
        }

        var iterator = SpilledList(value).Iterate();
        if (from > 0)
        {
            iterator.Seek(from);
        }

        for (var n = iterator.Fill(buffer); n > 0; n = iterator.Fill(buffer))
        {
            if (!sink.Add(term, buffer.AsSpan(0, n)))
            {
                return false;
            }
        }

        return true;
    }
}
