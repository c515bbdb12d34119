using System.Buffers.Binary;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Journal;

/// <summary>
/// The bytes of a page that changed since the version it was copied from, as the journal records
/// them for a page that existed before its transaction: runs of { u16 offset, u16 length, bytes },
/// ended by { 0, 0 }. Runs are whole 8-byte words. A put into a leaf changes its header, part of its
/// slot array and one entry, so this is usually a fraction of the page's image.
/// </summary>
/// <remarks>
/// Replay applies a diff on top of the page as the data file and the earlier records left it. That
/// is right even when the flusher had written a newer version, or tore one, before a crash: every
/// byte some later transaction changed is in that transaction's record (a diff or a whole image),
/// so replay ends with it; every byte no replayed record touches is the same in all versions since
/// the last completed flush, so any mix of them the data file holds is right. Pages new to their
/// transaction, overflow runs and pages rewritten whole are recorded as whole images.
/// </remarks>
internal static unsafe class PageDiff
{
    public const int RunHeaderSize = 4;
    private const int WordCount = PageHeader.PageSize / sizeof(ulong);

    /// <summary>
    /// Writes the diff of <paramref name="page"/> against <paramref name="basePage"/> to
    /// <paramref name="destination"/> and returns its length, or -1 when it would not be shorter
    /// than <paramref name="limit"/> (the whole image is then the cheaper record).
    /// </summary>
    public static int Encode(byte* page, byte* basePage, byte* destination, int limit)
    {
        var now = (ulong*)page;
        var before = (ulong*)basePage;
        var length = 0;
        var word = 0;
        while (word < WordCount)
        {
            // Equal stretches are the common case: skip them with the vectorized comparison.
            var offset = word * sizeof(ulong);
            var same = new ReadOnlySpan<byte>(page + offset, PageHeader.PageSize - offset)
                .CommonPrefixLength(new ReadOnlySpan<byte>(basePage + offset, PageHeader.PageSize - offset));
            word += same / sizeof(ulong);
            if (word >= WordCount)
            {
                break;
            }

            var start = word;
            while (word < WordCount && now[word] != before[word])
            {
                word++;
            }

            var bytes = (word - start) * sizeof(ulong);
            if (length + RunHeaderSize + bytes + RunHeaderSize >= limit)
            {
                return -1;
            }

            var run = destination + length;
            BinaryPrimitives.WriteUInt16LittleEndian(new Span<byte>(run, 2), (ushort)(start * sizeof(ulong)));
            BinaryPrimitives.WriteUInt16LittleEndian(new Span<byte>(run + 2, 2), (ushort)bytes);
            Buffer.MemoryCopy(page + (start * sizeof(ulong)), run + RunHeaderSize, bytes, bytes);
            length += RunHeaderSize + bytes;
        }

        if (length + RunHeaderSize >= limit)
        {
            return -1;
        }

        *(uint*)(destination + length) = 0;
        return length + RunHeaderSize;
    }

    /// <summary>
    /// Applies the diff at <paramref name="diff"/> (at most <paramref name="available"/> bytes) to
    /// <paramref name="page"/>; returns the diff's length, or -1 when it is malformed (a run past the
    /// page or past the record, or no end marker).
    /// </summary>
    public static long Apply(byte* diff, long available, byte* page)
    {
        long pos = 0;
        while (true)
        {
            if (pos + RunHeaderSize > available)
            {
                return -1;
            }

            int offset = BinaryPrimitives.ReadUInt16LittleEndian(new ReadOnlySpan<byte>(diff + pos, 2));
            int bytes = BinaryPrimitives.ReadUInt16LittleEndian(new ReadOnlySpan<byte>(diff + pos + 2, 2));
            pos += RunHeaderSize;
            if (bytes == 0)
            {
                return offset == 0 ? pos : -1;
            }

            if (offset + bytes > PageHeader.PageSize || pos + bytes > available)
            {
                return -1;
            }

            Buffer.MemoryCopy(diff + pos, page + offset, bytes, bytes);
            pos += bytes;
        }
    }
}
