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
        var cursor = buffer + HeadLength(pages.Length);
        foreach (ref readonly var page in pages)
        {
            var source = (byte*)page.Pointer;
            ImageParts(page, out var firstLength, out var tailStart);
            Buffer.MemoryCopy(source, cursor, firstLength, firstLength);
            cursor += firstLength;
            var tail = ImageLength(page) - tailStart;
            Buffer.MemoryCopy(source + tailStart, cursor, tail, tail);
            cursor += tail;
        }

        new Span<byte>(cursor, (int)(buffer + total - cursor)).Clear();
        var payload = buffer + HeadLength(pages.Length);
        WriteHead(buffer, txId, pages, payloadLength, Checksum.Compute(payload, payloadLength));
        return total;
    }

    /// <summary>Bytes of the header and entries, which the payload follows.</summary>
    public static long HeadLength(int entryCount) => HeaderSize + ((long)entryCount * EntrySize);

    /// <summary>
    /// Writes the header and entries of the record for <paramref name="pages"/> into <paramref name="head"/>
    /// (<see cref="HeadLength"/> bytes), so the payload can follow from wherever it is.
    /// </summary>
    public static void WriteHead(byte* head, long txId, ReadOnlySpan<PageVersion> pages, long payloadLength, uint payloadChecksum)
    {
        var entries = head + HeaderSize;
        for (var i = 0; i < pages.Length; i++)
        {
            var entry = entries + ((long)i * EntrySize);
            *(long*)entry = pages[i].Page;
            *(int*)(entry + 8) = pages[i].Pages;
            ImageParts(pages[i], out var firstLength, out var tailStart);
            if (pages[i].Pages == 1)
            {
                *(ushort*)(entry + 12) = (ushort)firstLength;
                *(ushort*)(entry + 14) = (ushort)tailStart;
            }
            else
            {
                *(uint*)(entry + 12) = 0;
            }
        }

        var header = new Span<byte>(head, HeaderSize);
        BinaryPrimitives.WriteUInt32LittleEndian(header, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(header[4..], pages.Length);
        BinaryPrimitives.WriteInt64LittleEndian(header[8..], txId);
        BinaryPrimitives.WriteInt64LittleEndian(header[16..], payloadLength);
        BinaryPrimitives.WriteUInt32LittleEndian(header[24..], payloadChecksum);
        BinaryPrimitives.WriteUInt32LittleEndian(header[28..], HeaderChecksum(head, pages.Length));
    }

    /// <summary>
    /// A page's image in the payload: bytes [0, <paramref name="firstLength"/>) and
    /// [<paramref name="tailStart"/>, <see cref="ImageLength"/>) of the page (a single page leaves out its hole; a run is whole).
    /// </summary>
    public static void ImageParts(in PageVersion page, out int firstLength, out long tailStart)
    {
        if (page.Pages == 1)
        {
            PageHole.Get((byte*)page.Pointer, out var start, out var end);
            firstLength = start;
            tailStart = end;
        }
        else
        {
            firstLength = 0;
            tailStart = 0;
        }
    }

    /// <summary>Bytes the page (or run) spans in memory.</summary>
    public static long ImageLength(in PageVersion page) => (long)page.Pages * PageHeader.PageSize;

    public static uint HeaderChecksum(byte* header, int entryCount)
    {
        var crc = Checksum.Update(Checksum.Seed, header, 28);
        crc = Checksum.Update(crc, header + HeaderSize, (long)entryCount * EntrySize);
        return Checksum.Finish(crc);
    }
}
