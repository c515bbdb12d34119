namespace Ingest.Indexing.Storage;

/// <summary>The inline form of a short posting list in a term's value (see <see cref="IndexLayout"/>).</summary>
internal static class InlinePostings
{
    /// <summary>Appends the ids of an inline value (after its tag byte) to <paramref name="ids"/>.</summary>
    public static void Decode(ReadOnlySpan<byte> value, List<long> ids)
    {
        var position = 1;
        long previous = 0;
        while (position < value.Length)
        {
            previous += (long)VarInt.Read(value, ref position);
            ids.Add(previous);
        }
    }

    /// <summary>
    /// Decodes ids of an inline value from <paramref name="position"/> (1 to start, after the tag byte; 0 as
    /// <paramref name="previous"/>) into <paramref name="ids"/> until it is full or the value ends; returns how many.
    /// </summary>
    public static int Decode(ReadOnlySpan<byte> value, ref int position, ref long previous, Span<long> ids)
    {
        var count = 0;
        while (position < value.Length && count < ids.Length)
        {
            previous += (long)VarInt.Read(value, ref position);
            ids[count++] = previous;
        }

        return count;
    }

    /// <summary>Encodes ascending distinct ids with the inline tag; returns the length.</summary>
    public static int Encode(ReadOnlySpan<long> ids, Span<byte> destination)
    {
        destination[0] = IndexLayout.InlineTag;
        var length = 1;
        long previous = 0;
        foreach (var id in ids)
        {
            length += VarInt.Write((ulong)(id - previous), destination[length..]);
            previous = id;
        }

        return length;
    }
}
