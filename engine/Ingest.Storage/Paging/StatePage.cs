namespace Ingest.Storage.Paging;

/// <summary>
/// Page 1: the environment's state, rewritten (copy-on-write, like any page) by every commit.
/// <code>
///  0            16       24             32          40          48       52       56
///  +------------+--------+--------------+-----------+-----------+--------+--------+------------------
///  | PageHeader | tx id  | root tree    | next page | free page | bitmap | unused | bitmap page
///  |  (State)   |  u64   | root page u64|    u64    | count u64 | count  |        | numbers u64[]
///  +------------+--------+--------------+-----------+-----------+--------+--------+------------------
///  next page: pages at or above it were never allocated; the file may be longer (growth steps).
///  bitmap i covers pages [i * FreeSpaceBitmap.PagesPerBitmap, (i + 1) * PagesPerBitmap).
/// </code>
/// </summary>
internal static unsafe class StatePage
{
    public const long PageNumber = 1;
    public const int HeaderSize = 56;
    public const int MaxBitmaps = (PageHeader.PageSize - HeaderSize) / 8;
    public const int NextPageOffset = 32;

    public static long GetTxId(byte* p) => *(long*)(p + 16);

    public static void SetTxId(byte* p, long v) => *(long*)(p + 16) = v;

    public static long GetRootTreePage(byte* p) => *(long*)(p + 24);

    public static void SetRootTreePage(byte* p, long v) => *(long*)(p + 24) = v;

    public static long GetNextPage(byte* p) => *(long*)(p + 32);

    public static void SetNextPage(byte* p, long v) => *(long*)(p + 32) = v;

    public static long GetFreeCount(byte* p) => *(long*)(p + 40);

    public static void SetFreeCount(byte* p, long v) => *(long*)(p + 40) = v;

    public static int GetBitmapCount(byte* p) => *(int*)(p + 48);

    public static void SetBitmapCount(byte* p, int v) => *(int*)(p + 48) = v;

    public static long GetBitmapPage(byte* p, int i) => ((long*)(p + HeaderSize))[i];

    public static void SetBitmapPage(byte* p, int i, long v) => ((long*)(p + HeaderSize))[i] = v;
}
