using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Text;

namespace Ingest.Documents.Records;

/// <summary>
/// Where a source (a Kafka topic, a RabbitMQ queue) resumes, value of docs/sources.
/// Key: source name UTF-8, a 0 byte, partition (i32 big-endian), so one source's partitions are adjacent and ordered.
/// <code>
///  0             8                   16
///  | next offset | etag when stored  | updated ticks (UTC) |
///  | i64         | i64               | i64                 |
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct SourcePositionRecord
{
    public const int Size = 24;

    public long NextOffset;
    public long Etag;
    public long UpdatedTicks;

    public static int MaxKeySize(string source) => Encoding.UTF8.GetMaxByteCount(source.Length) + 5;

    public static int WriteKey(string source, int partition, Span<byte> destination)
    {
        var n = Encoding.UTF8.GetBytes(source, destination);
        destination[n] = 0;
        BinaryPrimitives.WriteInt32BigEndian(destination[(n + 1)..], partition ^ int.MinValue); // sign flip: negative partitions sort first
        return n + 5;
    }

    public static int WritePrefix(string source, Span<byte> destination)
    {
        var n = Encoding.UTF8.GetBytes(source, destination);
        destination[n] = 0;
        return n + 1;
    }

    public static int ReadPartition(ReadOnlySpan<byte> key) => BinaryPrimitives.ReadInt32BigEndian(key[^4..]) ^ int.MinValue;
}
