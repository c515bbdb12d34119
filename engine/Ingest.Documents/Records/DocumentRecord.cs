using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A stored document (value of docs/by-etag) or tombstone (docs/tombstones); the etag is the key.
/// <code>
///  0                  8          12         14                 16
///  +------------------+----------+----------+------------------+----------+-------------+-----------------+--------------+------+
///  | last modified    | flags    | id bytes | collection bytes | id UTF-8 | collection  | expires at      | log position | body |
///  | ticks (UTC) i64  | u32      | u16      | u16              |          | UTF-8       | ticks (UTC) i64 | (16 bytes)   | JSON |
///  +------------------+----------+----------+------------------+----------+-------------+-----------------+--------------+------+
///                                                                                        only if flags has  only if flags
///                                                                                        Expires (2)        has Positioned (8)
///
///  log position = +--------------+-----------+--------+
///                 | topic number | partition | offset |
///                 | u32          | i32       | i64    |
///                 +--------------+-----------+--------+
/// </code>
/// Little-endian, written and read raw with MemoryMarshal. The id and collection keep their
/// original casing. Records written before expiration existed have no Expires flag, and records
/// written before log positions existed no Positioned flag: both read exactly as before. The topic
/// number names a topic in docs/topics (<see cref="TopicKey"/>), so a record carries 4 bytes, not the name.
/// <para>
/// Tombstones have no body. A delete's tombstone carries the delete's own position (if it had one) and no
/// expiry; a tombstone the expiration task made keeps the Expires flag with the expiry the document was deleted
/// for, and the position of the version that expired, so every node names that delete alike.
/// </para>
/// <para>
/// The body is the JSON as it arrived, or, with flag <see cref="DocumentFlags.Compressed"/> (4), a
/// compressed body (records written before compression existed never have the flag and read as before):
/// <code>
///  body = +-----------------+---------------------+------------------------------------+
///         | dictionary id   | uncompressed length | zstd frame (magicless, no content  |
///         | u32 (0 = none)  | u32                 | size, no dictionary id)            |
///         +-----------------+---------------------+------------------------------------+
/// </code>
/// See <see cref="CompressedBodyHeader"/>; the dictionary lives in docs/dictionaries (<see cref="DictionaryRecord"/>).
/// </para>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct DocumentRecord
{
    public const int Size = 16;

    public const int ExpiresSize = 8;

    public const int PositionSize = 16;

    public long LastModifiedTicks;
    public uint Flags;
    public ushort IdLength;
    public ushort CollectionLength;

    public readonly bool HasExpiry => (Flags & (uint)DocumentFlags.Expires) != 0;

    public readonly bool HasPosition => (Flags & (uint)DocumentFlags.Positioned) != 0;

    /// <summary>Where the expiry (if any) or else the body starts.</summary>
    public readonly int AfterNames => Size + IdLength + CollectionLength;

    /// <summary>Where the log position (if any) or else the body starts.</summary>
    public readonly int PositionOffset => AfterNames + (HasExpiry ? ExpiresSize : 0);

    /// <summary>Where the body starts.</summary>
    public readonly int BodyOffset => PositionOffset + (HasPosition ? PositionSize : 0);

    public static DocumentRecord Read(ReadOnlySpan<byte> value) => MemoryMarshal.Read<DocumentRecord>(value);

    public readonly ReadOnlySpan<byte> Id(ReadOnlySpan<byte> value) => value.Slice(Size, IdLength);

    public readonly ReadOnlySpan<byte> Collection(ReadOnlySpan<byte> value) => value.Slice(Size + IdLength, CollectionLength);

    public readonly ReadOnlySpan<byte> Body(ReadOnlySpan<byte> value) => value[BodyOffset..];

    /// <summary>The expiry in UTC ticks, or <see cref="long.MaxValue"/> for a document that never expires.</summary>
    public readonly long ExpiresTicks(ReadOnlySpan<byte> value) =>
        HasExpiry ? BinaryPrimitives.ReadInt64LittleEndian(value.Slice(AfterNames, ExpiresSize)) : long.MaxValue;

    /// <summary>The log position's bytes (topic number, partition, offset), or empty for a record without one.</summary>
    public readonly ReadOnlySpan<byte> Position(ReadOnlySpan<byte> value) => HasPosition ? value.Slice(PositionOffset, PositionSize) : default;

    /// <summary>Writes a log position's bytes to <paramref name="destination"/> (<see cref="PositionSize"/> bytes).</summary>
    public static void WritePosition(Span<byte> destination, uint topic, int partition, long offset)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination, topic);
        BinaryPrimitives.WriteInt32LittleEndian(destination[4..], partition);
        BinaryPrimitives.WriteInt64LittleEndian(destination[8..], offset);
    }

    /// <summary>Reads a log position's bytes (<see cref="Position"/>).</summary>
    public static (uint Topic, int Partition, long Offset) ReadPosition(ReadOnlySpan<byte> position) =>
        (BinaryPrimitives.ReadUInt32LittleEndian(position), BinaryPrimitives.ReadInt32LittleEndian(position[4..]), BinaryPrimitives.ReadInt64LittleEndian(position[8..]));

    /// <summary>Whether the document had expired at <paramref name="nowTicks"/>: one flag test and, for expiring documents, one compare.</summary>
    public readonly bool IsExpired(ReadOnlySpan<byte> value, long nowTicks) =>
        HasExpiry && BinaryPrimitives.ReadInt64LittleEndian(value.Slice(AfterNames, ExpiresSize)) <= nowTicks;
}
