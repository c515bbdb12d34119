using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A message that could not become a document, value of docs/dead-letters (key: id, BE).
/// <code>
///  0            8                16          20           24              28              32
///  | offset i64 | stored ticks   | partition | raw length | source length | reason length | source UTF-8 | reason UTF-8 | raw ...
///  |            | (UTC) i64      | i32       | i32        | i32           | i32           |
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct DeadLetterRecord
{
    public const int Size = 32;

    public long Offset;
    public long StoredTicks;
    public int Partition;
    public int RawLength;
    public int SourceLength;
    public int ReasonLength;

    public static DeadLetterRecord Read(ReadOnlySpan<byte> value) => MemoryMarshal.Read<DeadLetterRecord>(value);
}
