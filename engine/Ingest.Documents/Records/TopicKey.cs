using System.Buffers.Binary;
using System.Text;

namespace Ingest.Documents.Records;

/// <summary>
/// Keys of docs/topics, which numbers the log topics document records name (<see cref="DocumentRecord"/>), both ways:
/// <code>
///  'n' (0x6E), topic name UTF-8  -> topic number u32 (LE)
///  'i' (0x69), topic number u32 (BE) -> topic name UTF-8
/// </code>
/// Numbers start at 1 and are given once, never reused: a number read in any committed snapshot names the same topic forever.
/// </summary>
internal static class TopicKey
{
    private const byte NamePrefix = (byte)'n';
    private const byte NumberPrefix = (byte)'i';

    public const int NumberKeySize = 5;

    public static int MaxNameKeySize(string topic) => Encoding.UTF8.GetMaxByteCount(topic.Length) + 1;

    public static int WriteNameKey(string topic, Span<byte> destination)
    {
        destination[0] = NamePrefix;
        return Encoding.UTF8.GetBytes(topic, destination[1..]) + 1;
    }

    public static void WriteNumberKey(uint number, Span<byte> destination)
    {
        destination[0] = NumberPrefix;
        BinaryPrimitives.WriteUInt32BigEndian(destination[1..], number);
    }
}
