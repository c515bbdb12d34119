namespace Ingest.Storage.Paging;

/// <summary>
/// A value too large for a tree leaf lives in a run of consecutive pages.
/// <code>
///  0            16              24        32
///  +------------+---------------+---------+---------------------------- ... ---+
///  | PageHeader | value length  | unused  | value bytes, spilling over the next |
///  |  (Overflow)|      u64      |         | pages of the run                    |
///  +------------+---------------+---------+---------------------------- ... ---+
/// </code>
/// The checksum covers bytes 0..32+length of the run (minus the checksum field). A run is
/// written once and never modified: a new value gets a new run and the old run is freed.
/// </summary>
internal static unsafe class OverflowPage
{
    public const int HeaderSize = 32;
    private const int LengthOffset = 16;

    public static long GetValueLength(byte* page) => *(long*)(page + LengthOffset);

    public static void SetValueLength(byte* page, long length) => *(long*)(page + LengthOffset) = length;

    public static int PagesFor(long valueLength) => checked((int)((HeaderSize + valueLength + PageHeader.PageSize - 1) / PageHeader.PageSize));
}
