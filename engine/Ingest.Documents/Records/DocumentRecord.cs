using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A stored document (value of docs/by-etag) or tombstone (docs/tombstones); the etag is the key.
/// <code>
///  0                  8          12         14                 16
///  +------------------+----------+----------+------------------+----------+-------------+-----------------+------+
///  | last modified    | flags    | id bytes | collection bytes | id UTF-8 | collection  | expires at      | body |
///  | ticks (UTC) i64  | u32      | u16      | u16              |          | UTF-8       | ticks (UTC) i64 | JSON |
///  +------------------+----------+----------+------------------+----------+-------------+-----------------+------+
///                                                                                        only if flags has
///                                                                                        Expires (2)
/// </code>
/// Little-endian, written and read raw with MemoryMarshal. The id and collection keep their
/// original casing; tombstones have no body and no expiry. Records written before expiration
/// existed have no Expires flag and read exactly as before.
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

    public long LastModifiedTicks;
    public uint Flags;
    public ushort IdLength;
    public ushort CollectionLength;

    public readonly bool HasExpiry => (Flags & (uint)DocumentFlags.Expires) != 0;

    /// <summary>Where the expiry (if any) or else the body starts.</summary>
    public readonly int AfterNames => Size + IdLength + CollectionLength;

    /// <summary>Where the body starts.</summary>
    public readonly int BodyOffset => AfterNames + (HasExpiry ? ExpiresSize : 0);

    public static DocumentRecord Read(ReadOnlySpan<byte> value) => MemoryMarshal.Read<DocumentRecord>(value);

    public readonly ReadOnlySpan<byte> Id(ReadOnlySpan<byte> value) => value.Slice(Size, IdLength);

    public readonly ReadOnlySpan<byte> Collection(ReadOnlySpan<byte> value) => value.Slice(Size + IdLength, CollectionLength);

    public readonly ReadOnlySpan<byte> Body(ReadOnlySpan<byte> value) => value[BodyOffset..];

    /// <summary>The expiry in UTC ticks, or <see cref="long.MaxValue"/> for a document that never expires.</summary>
    public readonly long ExpiresTicks(ReadOnlySpan<byte> value) =>
        HasExpiry ? BinaryPrimitives.ReadInt64LittleEndian(value.Slice(AfterNames, ExpiresSize)) : long.MaxValue;

    /// <summary>Whether the document had expired at <paramref name="nowTicks"/>: one flag test and, for expiring documents, one compare.</summary>
    public readonly bool IsExpired(ReadOnlySpan<byte> value, long nowTicks) =>
        HasExpiry && BinaryPrimitives.ReadInt64LittleEndian(value.Slice(AfterNames, ExpiresSize)) <= nowTicks;
}
