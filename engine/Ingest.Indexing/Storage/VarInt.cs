namespace Ingest.Indexing.Storage;

/// <summary>LEB128 unsigned varints: 7 bits a byte, low bits first, high bit set on every byte but the last.</summary>
internal static class VarInt
{
    public const int MaxLength = 10;

    public static int Write(ulong value, Span<byte> destination)
    {
        var i = 0;
        while (value >= 0x80)
        {
            destination[i++] = (byte)(value | 0x80);
            value >>= 7;
        }

        destination[i++] = (byte)value;
        return i;
    }

    public static ulong Read(ReadOnlySpan<byte> source, ref int position)
    {
        ulong value = 0;
        var shift = 0;
        while (true)
        {
            var b = source[position++];
            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }

            shift += 7;
            if (shift > 63)
            {
                throw new InvalidDataException("Varint longer than 10 bytes in an index record.");
            }
        }
    }
}
