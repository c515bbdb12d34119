using System.Buffers.Binary;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Journal;

/// <summary>
/// One committed transaction in a journal file, written with one write and one sync.
/// Records start at 4 KiB boundaries and are zero-padded to the next one.
/// <code>
///  0       4       8          16               24           28           32
///  +-------+-------+----------+----------------+------------+------------+
///  | magic | count |  tx id   | payload length | payload crc| header crc |
///  |  u32  |  u32  |   u64    |      u64       |    u32     |    u32     |
///  +-------+-------+----------+----------------+------------+------------+
///  32: count entries of 16 bytes { u64 page number, u32 page count, u16 hole start, u16 hole end }
///  32 + 16 * count: payload = each entry's image in order: a single page without its hole
///      (bytes [0, hole start) then [hole end, 8192); the hole is zeros, see PageHole), or a
///      whole run of page count * 8192 bytes (hole start = hole end = 0)
///  then zeros up to a multiple of 4096
///  magic "IJR1"; header crc covers bytes 0..28 and the entries; payload crc covers the payload.
/// </code>
/// A record with a valid header and a bad payload at the tail of the journal is a torn write
/// and ends replay; anywhere else it is corruption.
/// </summary>
internal static unsafe class JournalRecord
{
    public const uint Magic = 0x31524A49; // "IJR1"
    public const int HeaderSize = 32;
    public const int EntrySize = 16;
    public const int Alignment = 4096;

    public static long TotalLength(int entryCount, long payloadLength)
    {
        var raw = HeaderSize + ((long)entryCount * EntrySize) + payloadLength;
        return (raw + Alignment - 1) / Alignment * Alignment;
    }

    /// <summary>Bytes the payload of <paramref name="pages"/> takes (single pages without their holes).</summary>
    public static long PayloadLength(ReadOnlySpan<PageVersion> pages)
    {
        long length = 0;
        foreach (ref readonly var p in pages)
        {
            if (p.Pages == 1)
            {
                PageHole.Get((byte*)p.Pointer, out var start, out var end);
                length += PageHeader.PageSize - (end - start);
            }
            else
            {
                length += (long)p.Pages * PageHeader.PageSize;
            }
        }

        return length;
    }

    /// <summary>Fills <paramref name="buffer"/> with the record for <paramref name="pages"/> (holes already zeroed) and returns its length.</summary>
    public static long Build(byte* buffer, long txId, ReadOnlySpan<PageVersion> pages)
    {
        var payloadLength = PayloadLength(pages);
        var total = TotalLength(pages.Length, payloadLength);
        var entries = buffer + HeaderSize;
        var payload = entries + ((long)pages.Length * EntrySize);
        var cursor = payload;
        for (var i = 0; i < pages.Length; i++)
        {
            var entry = entries + ((long)i * EntrySize);
            var source = (byte*)pages[i].Pointer;
            *(long*)entry = pages[i].Page;
            *(int*)(entry + 8) = pages[i].Pages;
            if (pages[i].Pages == 1)
            {
                PageHole.Get(source, out var start, out var end);
                *(ushort*)(entry + 12) = (ushort)start;
                *(ushort*)(entry + 14) = (ushort)end;
                Buffer.MemoryCopy(source, cursor, start, start);
                cursor += start;
                var tail = PageHeader.PageSize - end;
                Buffer.MemoryCopy(source + end, cursor, tail, tail);
                cursor += tail;
            }
            else
            {
                *(uint*)(entry + 12) = 0;
                var bytes = (long)pages[i].Pages * PageHeader.PageSize;
                Buffer.MemoryCopy(source, cursor, bytes, bytes);
                cursor += bytes;
            }
        }

        new Span<byte>(cursor, (int)(buffer + total - cursor)).Clear();
        var header = new Span<byte>(buffer, HeaderSize);
        BinaryPrimitives.WriteUInt32LittleEndian(header, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(header[4..], pages.Length);
        BinaryPrimitives.WriteInt64LittleEndian(header[8..], txId);
        BinaryPrimitives.WriteInt64LittleEndian(header[16..], payloadLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header[24..], Checksum.Compute(payload, payloadLength));
        BinaryPrimitives.WriteUInt32LittleEndian(header[28..], HeaderChecksum(buffer, pages.Length));
        return total;
    }

    public static uint HeaderChecksum(byte* header, int entryCount)
    {
        var crc = Checksum.Update(Checksum.Seed, header, 28);
        crc = Checksum.Update(crc, header + HeaderSize, (long)entryCount * EntrySize);
        return Checksum.Finish(crc);
    }
}
