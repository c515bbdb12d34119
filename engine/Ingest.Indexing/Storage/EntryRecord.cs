using System.Text;

namespace Ingest.Indexing.Storage;

/// <summary>The value of an entry in the "entries" tree: its document id, terms and null fields (layout in <see cref="IndexLayout"/>).</summary>
internal static class EntryRecord
{
    /// <summary>
    /// Encodes an entry into <paramref name="output"/> (cleared first): <paramref name="terms"/> sorted by field and
    /// term, distinct, their bytes in <paramref name="arena"/>; <paramref name="isNull"/> one flag per field.
    /// </summary>
    public static void Encode(string documentId, ReadOnlySpan<PostingOp> terms, ReadOnlySpan<bool> isNull, byte[] arena, ByteArena output)
    {
        output.Clear();
        var idLength = Encoding.UTF8.GetByteCount(documentId);
        WriteVarInt(output, (ulong)idLength);
        output.Advance(Encoding.UTF8.GetBytes(documentId, output.Reserve(idLength)));
        var t = 0;
        for (var field = 0; field < isNull.Length; field++)
        {
            var first = t;
            while (t < terms.Length && terms[t].Field == field)
            {
                t++;
            }

            var count = t - first;
            if (count == 0 && !isNull[field])
            {
                continue;
            }

            WriteVarInt(output, (ulong)field);
            WriteVarInt(output, ((ulong)count << 1) | (isNull[field] ? 1UL : 0UL));
            ReadOnlySpan<byte> previous = default;
            for (var i = first; i < t; i++)
            {
                var term = arena.AsSpan(terms[i].Start, terms[i].Length);
                var shared = previous.CommonPrefixLength(term);
                WriteVarInt(output, (ulong)shared);
                WriteVarInt(output, (ulong)(term.Length - shared));
                output.Append(term[shared..]);
                previous = term;
            }
        }
    }

    /// <summary>
    /// Decodes an entry's terms into <paramref name="terms"/> (as removals of <paramref name="entry"/>, their bytes
    /// appended to <paramref name="arena"/>) and its null flags into <paramref name="isNull"/> (cleared first).
    /// </summary>
    public static void DecodeTerms(ReadOnlySpan<byte> record, long entry, ByteArena arena, List<PostingOp> terms, Span<bool> isNull)
    {
        isNull.Clear();
        var position = 0;
        var idLength = (int)VarInt.Read(record, ref position);
        position += idLength;
        var previousStart = 0;
        while (position < record.Length)
        {
            var field = (int)VarInt.Read(record, ref position);
            var header = VarInt.Read(record, ref position);
            isNull[field] = (header & 1) != 0;
            var count = (int)(header >> 1);
            for (var i = 0; i < count; i++)
            {
                var shared = (int)VarInt.Read(record, ref position);
                var suffix = (int)VarInt.Read(record, ref position);
                var destination = arena.Reserve(shared + suffix);
                arena.Bytes.AsSpan(previousStart, shared).CopyTo(destination);
                record.Slice(position, suffix).CopyTo(destination[shared..]);
                position += suffix;
                previousStart = arena.Length;
                arena.Advance(shared + suffix);
                terms.Add(new PostingOp(field, previousStart, shared + suffix, entry, IsAddition: false));
            }
        }
    }

    public static string DocumentId(ReadOnlySpan<byte> record)
    {
        var position = 0;
        var length = (int)VarInt.Read(record, ref position);
        return Encoding.UTF8.GetString(record.Slice(position, length));
    }

    private static void WriteVarInt(ByteArena output, ulong value) => output.Advance(VarInt.Write(value, output.Reserve(VarInt.MaxLength)));
}
