using System.Buffers.Binary;

namespace Ingest.Storage.Paging;

/// <summary>
/// The data file's header. Page 0 holds two copies, at offsets 0 and 4096, written alternately
/// so a torn header write always leaves the other copy intact; the valid copy with the higher
/// sequence wins.
/// <code>
///  0        8        12       16           24               32         40          48         56           64       68
///  +--------+--------+--------+------------+----------------+----------+-----------+----------+------------+--------+
///  | magic  |version |pagesize| state page | last applied tx| sequence | first     | last     | journal    | crc32c |
///  |  u64   |  u32   |  u32   |    u64     |      u64       |   u64    | journal   | journal  | file size  |  u32   |
///  +--------+--------+--------+------------+----------------+----------+-----------+----------+------------+--------+
///  magic "INGESTDB"; the state page holds the root tree and the free-space map; every
///  journal record up to "last applied tx" is in the data file; crc32c covers bytes 0..64.
///  Journal files first..last (sequence numbers) must all exist and be at least "journal file
///  size" long: they may hold records the data file lacks (none when first > last). A missing
///  or short one is damage, not a torn write (files are zero-filled before the header names them).
///  Format version 3 (the current one) has version 2's layout; its journal records may hold page diffs.
///  Format version 1 ended at byte 44 (crc32c at 40 over 0..40) and knew nothing of journals.
/// </code>
/// </summary>
internal sealed record FileHeader(long StatePage, long LastAppliedTx, long Sequence, long FirstJournal = 1, long LastJournal = 0, long JournalFileSize = 0)
{
    public const ulong Magic = 0x4244545345474E49; // "INGESTDB" little-endian
    // 3: journal records may hold page diffs (PageDiff); the header's layout is version 2's. A version 2
    // binary refuses the file rather than misread such a record.
    public const uint FormatVersion = 3;
    private const uint FormatVersion2 = 2;
    private const uint FormatVersion1 = 1;
    public const int Size = 68;
    private const int Version1Size = 44;
    public const int SlotSize = 4096;

    /// <summary>Whether the header names the journal files that must exist (format 1 headers do not).</summary>
    public bool KnowsJournals => LastJournal > 0;

    public void Write(Span<byte> slot)
    {
        slot[..SlotSize].Clear();
        BinaryPrimitives.WriteUInt64LittleEndian(slot, Magic);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[8..], FormatVersion);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[12..], PageHeader.PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(slot[16..], StatePage);
        BinaryPrimitives.WriteInt64LittleEndian(slot[24..], LastAppliedTx);
        BinaryPrimitives.WriteInt64LittleEndian(slot[32..], Sequence);
        BinaryPrimitives.WriteInt64LittleEndian(slot[40..], FirstJournal);
        BinaryPrimitives.WriteInt64LittleEndian(slot[48..], LastJournal);
        BinaryPrimitives.WriteInt64LittleEndian(slot[56..], JournalFileSize);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[64..], Checksum.Compute(slot[..64]));
    }

    /// <summary>Parses one copy; null if it is not a valid header. Throws if it is valid but incompatible.</summary>
    public static FileHeader? TryRead(ReadOnlySpan<byte> slot, string path, long offset)
    {
        if (BinaryPrimitives.ReadUInt64LittleEndian(slot) != Magic)
        {
            return null;
        }

        var version = BinaryPrimitives.ReadUInt32LittleEndian(slot[8..]);
        var valid2 = BinaryPrimitives.ReadUInt32LittleEndian(slot[64..]) == Checksum.Compute(slot[..64]);
        var valid1 = BinaryPrimitives.ReadUInt32LittleEndian(slot[40..]) == Checksum.Compute(slot[..40]);
        if (!(version is FormatVersion or FormatVersion2 ? valid2 : version == FormatVersion1 ? valid1 : valid1 || valid2))
        {
            return null;
        }

        var pageSize = BinaryPrimitives.ReadUInt32LittleEndian(slot[12..]);
        if (version is not (FormatVersion or FormatVersion2 or FormatVersion1) || pageSize != PageHeader.PageSize)
        {
            throw new StorageCorruptionException($"Unsupported data file: format version {version}, page size {pageSize} (expected {FormatVersion}, {PageHeader.PageSize})", path, offset);
        }

        var header = new FileHeader(
            BinaryPrimitives.ReadInt64LittleEndian(slot[16..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[24..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[32..]));
        return version == FormatVersion1
            ? header
            : header with
            {
                FirstJournal = BinaryPrimitives.ReadInt64LittleEndian(slot[40..]),
                LastJournal = BinaryPrimitives.ReadInt64LittleEndian(slot[48..]),
                JournalFileSize = BinaryPrimitives.ReadInt64LittleEndian(slot[56..]),
            };
    }
}
