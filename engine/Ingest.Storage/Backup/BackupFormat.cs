namespace Ingest.Storage.Backup;

/// <summary>
/// The backup file: a stream of entries, each an environment (the pages of one read snapshot) or a
/// plain file, written front to back so a server can send it while it reads its snapshots.
/// <code>
///  file     magic "INGESTBK" u64 | format version u32 | page size u32 | entry ... | end
///  entry    tag u8 | path length u16 | path UTF-8 ('/'-separated, relative) | body | crc32c u32
///  'E' body tx id i64 | next page i64 | unit ... | -1 i64 | 0 i32
///           unit: page i64 | page count i32 | page images (count * page size)
///  'F' body length i64 | bytes
///  end      tag 'Z' | entry count i32 | crc32c u32
/// </code>
/// An environment's units are its allocated pages in page order: a single page, or an overflow run
/// (the only unit longer than one page). Free pages and the file header are not written; restore
/// leaves free pages zero and writes a fresh header naming the snapshot's transaction. Each unit
/// carries the engine's own page checksum, so restore names a damaged page; the crc32c after each
/// entry (sequential CRC-32C, see BackupChecksum) covers the entry from its tag, so damage anywhere else (a path, a file's bytes) names the
/// entry, and a missing end marker means the backup was cut short.
/// </summary>
internal static class BackupFormat
{
    public const ulong Magic = 0x4B42545345474E49; // "INGESTBK" little-endian
    public const uint FormatVersion = 1;
    public const int HeaderSize = 16;
    public const byte EnvironmentTag = (byte)'E';
    public const byte FileTag = (byte)'F';
    public const byte EndTag = (byte)'Z';
    public const int UnitHeaderSize = 12;
    public const int MaxPathBytes = 1024;
}
