using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Paging;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Journal;

/// <summary>
/// The unused part of a page: the middle of a tree page (between the slot or entry array and the
/// entry heap), the end of a fixed-size tree page or of the state page. Commit
/// zeroes it before sealing the page and the journal leaves it out, so a page that is 60% full
/// costs 60% of a page in the journal; replay writes the zeros back and the checksum still holds.
/// </summary>
internal static unsafe class PageHole
{
    /// <summary>The hole [start, end) of a single page; start == end when there is none.</summary>
    public static void Get(byte* page, out int start, out int end)
    {
        switch (PageHeader.GetType(page))
        {
            case PageType.TreeLeaf or PageType.TreeBranch:
                start = TreePage.HeaderSize + (TreePage.SlotSize * TreePage.GetCount(page));
                end = TreePage.GetUpper(page);
                break;
            case PageType.State:
                start = StatePage.HeaderSize + (8 * StatePage.GetBitmapCount(page));
                end = PageHeader.PageSize;
                break;
            case PageType.FixedLeaf or PageType.FixedBranch:
                start = FixedSizeTreePage.HeaderSize + (FixedSizeTreePage.EntrySize(page) * FixedSizeTreePage.GetCount(page));
                end = PageHeader.PageSize;
                break;
            default:
                start = PageHeader.PageSize;
                end = PageHeader.PageSize;
                break;
        }

        if (start > end || start < PageHeader.Size)
        {
            start = end = PageHeader.PageSize; // never elide from a page that does not look right
        }
    }

    public static void Clear(byte* page)
    {
        Get(page, out var start, out var end);
        new Span<byte>(page + start, end - start).Clear();
    }
}
