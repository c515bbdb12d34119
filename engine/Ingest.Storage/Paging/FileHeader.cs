using System.Buffers.Binary;

namespace Ingest.Storage.Paging;

/// <summary>
/// The data file's header. Page 0 holds two copies, at offsets 0 and 4096, written alternately
/// so a torn header write always leaves the other copy intact; the valid copy with the higher
/// sequence wins.
/// <code>
///  0        8        12       16           24               32         40       44
///  +--------+--------+--------+------------+----------------+----------+--------+
///  | magic  |version |pagesize| state page | last applied tx| sequence | crc32c |
///  |  u64   |  u32   |  u32   |    u64     |      u64       |   u64    |  u32   |
///  +--------+--------+--------+------------+----------------+----------+--------+
///  magic "INGESTDB"; the state page holds the root tree and the free-space map; every
///  journal record up to "last applied tx" is in the data file; crc32c covers bytes 0..40.
/// </code>
/// </summary>
internal readonly record struct FileHeader(long StatePage, long LastAppliedTx, long Sequence)
{
    public const ulong Magic = 0x4244545345474E49; // "INGESTDB" little-endian
    public const uint FormatVersion = 1;
    public const int Size = 44;
    public const int SlotSize = 4096;

    public void Write(Span<byte> slot)
    {
        slot[..SlotSize].Clear();
        BinaryPrimitives.WriteUInt64LittleEndian(slot, Magic);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[8..], FormatVersion);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[12..], PageHeader.PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(slot[16..], StatePage);
        BinaryPrimitives.WriteInt64LittleEndian(slot[24..], LastAppliedTx);
        BinaryPrimitives.WriteInt64LittleEndian(slot[32..], Sequence);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[40..], Checksum.Compute(slot[..40]));
    }

    /// <summary>Parses one copy; null if it is not a valid header. Throws if it is valid but incompatible.</summary>
    public static FileHeader? TryRead(ReadOnlySpan<byte> slot, string path, long offset)
    {
        if (BinaryPrimitives.ReadUInt64LittleEndian(slot) != Magic
            || BinaryPrimitives.ReadUInt32LittleEndian(slot[40..]) != Checksum.Compute(slot[..40]))
        {
            return null;
        }

        var version = BinaryPrimitives.ReadUInt32LittleEndian(slot[8..]);
        var pageSize = BinaryPrimitives.ReadUInt32LittleEndian(slot[12..]);
        if (version != FormatVersion || pageSize != PageHeader.PageSize)
        {
            throw new StorageCorruptionException($"Unsupported data file: format version {version}, page size {pageSize} (expected {FormatVersion}, {PageHeader.PageSize})", path, offset);
        }

        return new FileHeader(
            BinaryPrimitives.ReadInt64LittleEndian(slot[16..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[24..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[32..]));
    }
}
