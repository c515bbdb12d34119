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
///      whole run of page count * 8192 bytes (hole start = hole end = 0), or, for a page that
///      existed before the transaction (hole start = hole end = 0xFFFF), its diff (see PageDiff)
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

    /// <summary>The hole fields of an entry whose payload is a diff: no page has a hole that ends past its end.</summary>
    public const ushort DiffMarker = 0xFFFF;

    public static long TotalLength(int entryCount, long payloadLength)
    {
        var raw = HeaderSize + ((long)entryCount * EntrySize) + payloadLength;
        return (raw + Alignment - 1) / Alignment * Alignment;
    }

    /// <summary>
    /// Bytes the payload of <paramref name="pages"/> takes (single pages without their holes, or their
    /// diff where <paramref name="diffLengths"/> gives one, i.e. is not negative).
    /// </summary>
    public static long PayloadLength(ReadOnlySpan<PageVersion> pages, ReadOnlySpan<int> diffLengths)
    {
        long length = 0;
        for (var i = 0; i < pages.Length; i++)
        {
            ref readonly var p = ref pages[i];
            if (diffLengths[i] >= 0)
            {
                length += diffLengths[i];
            }
            else if (p.Pages == 1)
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

    /// <summary>
    /// Fills <paramref name="buffer"/> with the record for <paramref name="pages"/> (holes already zeroed),
    /// taking the diffs from <paramref name="diffs"/>, where they lie one after the other in page order, and
    /// returns its length.
    /// </summary>
    public static long Build(byte* buffer, long txId, ReadOnlySpan<PageVersion> pages, byte* diffs, ReadOnlySpan<int> diffLengths)
    {
        var payloadLength = PayloadLength(pages, diffLengths);
        var total = TotalLength(pages.Length, payloadLength);
        var cursor = buffer + HeadLength(pages.Length);
        for (var i = 0; i < pages.Length; i++)
        {
            ref readonly var page = ref pages[i];
            if (diffLengths[i] >= 0)
            {
                Buffer.MemoryCopy(diffs, cursor, diffLengths[i], diffLengths[i]);
                diffs += diffLengths[i];
                cursor += diffLengths[i];
                continue;
            }

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
        WriteHead(buffer, txId, pages, diffLengths, payloadLength, Checksum.Compute(payload, payloadLength));
        return total;
    }

    /// <summary>Bytes of the header and entries, which the payload follows.</summary>
    public static long HeadLength(int entryCount) => HeaderSize + ((long)entryCount * EntrySize);

    /// <summary>
    /// Writes the header and entries of the record for <paramref name="pages"/> into <paramref name="head"/>
    /// (<see cref="HeadLength"/> bytes), so the payload can follow from wherever it is.
    /// </summary>
    public static void WriteHead(byte* head, long txId, ReadOnlySpan<PageVersion> pages, ReadOnlySpan<int> diffLengths, long payloadLength, uint payloadChecksum)
    {
        var entries = head + HeaderSize;
        for (var i = 0; i < pages.Length; i++)
        {
            var entry = entries + ((long)i * EntrySize);
            *(long*)entry = pages[i].Page;
            *(int*)(entry + 8) = pages[i].Pages;
            if (diffLengths[i] >= 0)
            {
                *(ushort*)(entry + 12) = DiffMarker;
                *(ushort*)(entry + 14) = DiffMarker;
            }
            else if (pages[i].Pages == 1)
            {
                ImageParts(pages[i], out var firstLength, out var tailStart);
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
