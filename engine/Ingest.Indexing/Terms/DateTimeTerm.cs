using System.Buffers.Binary;

namespace Ingest.Indexing.Terms;

/// <summary>
/// A datetime is its UTC ticks (100 ns since 0001-01-01T00:00:00Z, 0 to DateTime.MaxValue.Ticks) as an int64 with the
/// sign bit flipped, big-endian, so unsigned byte order is time order.
/// <code>
/// +--------+--------+--------+--------+--------+--------+--------+--------+
/// | (ticks XOR 2^63), big-endian                                          |
/// +--------+--------+--------+--------+--------+--------+--------+--------+
///  0001-01-01T00:00:00Z -> 80 00 00 00 00 00 00 00
///  1970-01-01T00:00:00Z -> 88 9f 7f f5 f7 b5 80 00   (ticks 621355968000000000)
/// </code>
/// Ticks are never negative, so the flip changes no order; it keeps the layout the one any int64 key would use.
/// </summary>
internal static class DateTimeTerm
{
    public const int Size = 8;

    public static void Write(long utcTicks, Span<byte> destination) =>
        BinaryPrimitives.WriteUInt64BigEndian(destination, (ulong)utcTicks ^ 0x8000_0000_0000_0000UL);

    public static long Read(ReadOnlySpan<byte> key) => (long)(BinaryPrimitives.ReadUInt64BigEndian(key) ^ 0x8000_0000_0000_0000UL);
}
