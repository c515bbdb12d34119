using System.Buffers.Binary;

namespace Ingest.Indexing.Terms;

/// <summary>
/// Numbers, int64 and double alike, are one 8-byte key whose unsigned byte order is numeric order, so one range scan
/// over the term dictionary serves <c>Total between 10 and 99.5</c> whatever JSON wrote.
/// <code>
/// value -> double d (int64 rounds to the nearest double; -0.0 becomes 0.0)
/// bits  = IEEE 754 bits of d
/// key   = d >= 0 ? bits with the sign bit set : all bits inverted
///
/// +--------+--------+--------+--------+--------+--------+--------+--------+
/// | key, big-endian: byte 0 holds the (flipped) sign and top exponent bits |
/// +--------+--------+--------+--------+--------+--------+--------+--------+
///  -1.0 -> 40 0f ff ff ff ff ff ff     0 -> 80 00 00 00 00 00 00 00
///   1.0 -> bf f0 00 00 00 00 00 00     2 -> c0 00 00 00 00 00 00 00
/// </code>
/// Positive doubles already sort by their bits; setting the sign bit puts them above every negative. Negative doubles
/// sort in reverse by their bits; inverting them all fixes that and clears the sign bit.
/// <para>
/// int64 values with a magnitude above 2^53 have no exact double: they round to the nearest one (ties to even), so
/// neighbours such as 2^53 and 2^53 + 1 share a key. Order is still never inverted (a &lt; b gives key(a) &lt;= key(b));
/// such a term matches every integer that rounds the same way, and the exact value is for the numeric column to keep.
/// Infinities (a JSON number beyond double's range) sort at the ends. JSON has no NaN.
/// </para>
/// </summary>
internal static class NumberTerm
{
    public const int Size = 8;

    public static void Write(long value, Span<byte> destination) => Write((double)value, destination);

    public static void Write(double value, Span<byte> destination)
    {
        if (value == 0)
        {
            value = 0; // -0.0 == 0.0, so one key
        }

        var bits = BitConverter.DoubleToInt64Bits(value);
        var key = bits < 0 ? ~(ulong)bits : (ulong)bits | 0x8000_0000_0000_0000UL;
        BinaryPrimitives.WriteUInt64BigEndian(destination, key);
    }

    public static double Read(ReadOnlySpan<byte> key)
    {
        var k = BinaryPrimitives.ReadUInt64BigEndian(key);
        var bits = (k & 0x8000_0000_0000_0000UL) != 0 ? k & 0x7FFF_FFFF_FFFF_FFFFUL : ~k;
        return BitConverter.Int64BitsToDouble((long)bits);
    }
}
