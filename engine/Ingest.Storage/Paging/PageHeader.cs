using System.Runtime.CompilerServices;

namespace Ingest.Storage.Paging;

/// <summary>
/// The 16 bytes every page starts with. Each page type lays out the rest of the page itself.
/// <code>
///  0        8        12   13        16
///  +--------+--------+----+---------+
///  | page # | crc32c |type| type-specific ...
///  +--------+--------+----+---------+
///  page #  u64  the page's own number: a page written to the wrong place fails verification
///  crc32c  u32  CRC-32C of the page with these 4 bytes skipped; an overflow run covers its
///               header and value only (see OverflowPage)
///  type    u8   PageType
/// </code>
/// Checksums are computed at commit for every page the transaction wrote. Pages read from the
/// data file are verified the first time they are read after the environment opens (a bitmap
/// remembers which were verified); pages in scratch memory were produced by this process.
/// </summary>
internal static unsafe class PageHeader
{
    public const int PageSize = 8192;
    public const int PageShift = 13;
    public const int Size = 16;
    public const int ChecksumOffset = 8;
    public const int TypeOffset = 12;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long GetPageNumber(byte* page) => *(long*)page;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static PageType GetType(byte* page) => (PageType)page[TypeOffset];

    public static void Initialize(byte* page, long pageNumber, PageType type)
    {
        new Span<byte>(page, PageSize).Clear();
        *(long*)page = pageNumber;
        page[TypeOffset] = (byte)type;
    }

    /// <summary>Bytes covered by the checksum, starting at the page: a whole page, or an overflow run's header and value.</summary>
    public static long ChecksummedLength(byte* page)
    {
        return GetType(page) == PageType.Overflow ? OverflowPage.HeaderSize + OverflowPage.GetValueLength(page) : PageSize;
    }

    public static uint ComputeChecksum(byte* page, long length)
    {
        var crc = Checksum.Update(Checksum.Seed, page, ChecksumOffset);
        crc = Checksum.Update(crc, page + ChecksumOffset + 4, length - ChecksumOffset - 4);
        return Checksum.Finish(crc);
    }

    public static void Seal(byte* page)
    {
        *(uint*)(page + ChecksumOffset) = ComputeChecksum(page, ChecksummedLength(page));
    }

    public static bool Verify(byte* page, long expectedPageNumber, long availableBytes)
    {
        if (GetPageNumber(page) != expectedPageNumber)
        {
            return false;
        }

        var length = ChecksummedLength(page);
        if (length < Size || length > availableBytes)
        {
            return false;
        }

        return *(uint*)(page + ChecksumOffset) == ComputeChecksum(page, length);
    }
}
