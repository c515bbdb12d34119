using System.Buffers.Binary;

namespace Ingest.Documents.Records;

/// <summary>Etags (and dead-letter ids) as tree keys: 8 bytes big-endian, so byte order is numeric order.</summary>
internal static class EtagKey
{
    public const int Size = 8;

    public static void Write(Span<byte> destination, long etag) => BinaryPrimitives.WriteInt64BigEndian(destination, etag);

    public static long Read(ReadOnlySpan<byte> key) => BinaryPrimitives.ReadInt64BigEndian(key);
}
