namespace Ingest.Storage.Paging;

/// <summary>
/// A free-space bitmap page: one bit per page, 1 = free.
/// <code>
///  0            16
///  +------------+--------------------------------------------------+
///  | PageHeader | u64 words: bit (i % 64) of word (i / 64) = page  |
///  | (FreeSpace |   bitmapIndex * PagesPerBitmap + i is free       |
///  |   Bitmap)  |                                                  |
///  +------------+--------------------------------------------------+
/// </code>
/// A page freed by a transaction can be reused by the next one (or the same one) at once:
/// readers of older snapshots find the older versions through their page table or the data
/// file, which the flusher only overwrites once no reader can need the older version.
/// </summary>
internal static class FreeSpaceBitmap
{
    public const int WordsPerBitmap = (PageHeader.PageSize - PageHeader.Size) / 8;
    public const long PagesPerBitmap = WordsPerBitmap * 64L;
}
