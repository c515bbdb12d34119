using System.Buffers.Binary;

namespace Ingest.Documents.Expiration;

/// <summary>
/// Keys of the expiry tree (docs/expiry): the expiry in UTC ticks, 8 bytes big-endian (so byte order is
/// time order), then the document's folded id. The value is the document's etag (8 bytes, LE).
/// </summary>
internal static class ExpiryKey
{
    public const int TicksSize = 8;

    public static int Write(Span<byte> destination, long expiresTicks, ReadOnlySpan<byte> foldedId)
    {
        BinaryPrimitives.WriteInt64BigEndian(destination, expiresTicks);
        foldedId.CopyTo(destination[TicksSize..]);
        return TicksSize + foldedId.Length;
    }

    public static long ReadTicks(ReadOnlySpan<byte> key) => BinaryPrimitives.ReadInt64BigEndian(key);

    public static ReadOnlySpan<byte> FoldedId(ReadOnlySpan<byte> key) => key[TicksSize..];
}
