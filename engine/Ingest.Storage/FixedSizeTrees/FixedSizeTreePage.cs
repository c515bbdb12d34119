using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.FixedSizeTrees;

/// <summary>
/// A fixed-size tree page: sorted fixed-stride entries, binary searched in place.
/// <code>
///  0            16      18       20           24                 32
///  +------------+-------+--------+------------+------------------+--------------------------
///  | PageHeader | count | unused | value size | tree entry count | entries[count]
///  | (FixedLeaf/|  u16  |        |    u32     | u64 (root only)  |
///  | FixedBranch)       |        |            |                  |
///  +------------+-------+--------+------------+------------------+--------------------------
///  leaf entry:   i64 key | value (value size bytes; 0 for a set)
///  branch entry: i64 key | u64 child page   (entry 0's key is minus infinity)
/// </code>
/// </summary>
internal static unsafe class FixedSizeTreePage
{
    public const int HeaderSize = 32;
    public const int Capacity = PageHeader.PageSize - HeaderSize;
    public const int BranchEntrySize = 16;

    public static void Initialize(byte* p, long pageNumber, bool isLeaf, int valueSize)
    {
        PageHeader.Initialize(p, pageNumber, isLeaf ? PageType.FixedLeaf : PageType.FixedBranch);
        *(int*)(p + 20) = valueSize;
    }

    public static void Reset(byte* p, bool isLeaf)
    {
        var number = PageHeader.GetPageNumber(p);
        var valueSize = GetValueSize(p);
        var treeCount = GetTreeCount(p);
        Initialize(p, number, isLeaf, valueSize);
        SetTreeCount(p, treeCount);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsLeaf(byte* p) => p[PageHeader.TypeOffset] == (byte)PageType.FixedLeaf;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int GetCount(byte* p) => *(ushort*)(p + 16);

    public static void SetCount(byte* p, int v) => *(ushort*)(p + 16) = (ushort)v;

    public static int GetValueSize(byte* p) => *(int*)(p + 20);

    public static long GetTreeCount(byte* p) => *(long*)(p + 24);

    public static void SetTreeCount(byte* p, long v) => *(long*)(p + 24) = v;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int EntrySize(byte* p) => IsLeaf(p) ? 8 + GetValueSize(p) : BranchEntrySize;

    public static int MaxEntries(byte* p) => Capacity / EntrySize(p);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte* Entry(byte* p, int i, int entrySize) => p + HeaderSize + (i * entrySize);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long KeyAt(byte* p, int i, int entrySize) => *(long*)Entry(p, i, entrySize);

    public static long ChildAt(byte* p, int i) => *(long*)(Entry(p, i, BranchEntrySize) + 8);

    /// <summary>Index of the first key >= <paramref name="key"/>; <paramref name="found"/> when equal.</summary>
    public static int SearchLeaf(byte* p, long key, out bool found) => Search(p, 0, GetCount(p) - 1, key, EntrySize(p), out found);

    /// <summary>
    /// The first index in [<paramref name="from"/>, <paramref name="count"/>) whose key is >= <paramref name="key"/>.
    /// Keys are distinct integers, so <paramref name="key"/> sits at most (key - key at from) entries after
    /// <paramref name="from"/>: that entry is probed first, and where the keys are dense (an index column's entry ids,
    /// gaps only where entries were removed) it is the one. Otherwise a binary search between the two. One probe
    /// instead of a gallop and a search matters because a match set's keys are far apart: every probe is a cache miss.
    /// </summary>
    public static int SearchLeafFrom(byte* p, int from, int count, long key, int entrySize, out bool found)
    {
        if (from >= count)
        {
            found = false;
            return count;
        }

        var first = KeyAt(p, from, entrySize);
        if (first >= key)
        {
            found = first == key;
            return from;
        }

        var reach = (ulong)key - (ulong)first; // > 0, and exact even across the sign: two's complement
        var hi = reach >= (ulong)(count - 1 - from) ? count - 1 : from + (int)reach;
        var k = KeyAt(p, hi, entrySize);
        if (k <= key)
        {
            found = k == key;
            return found ? hi : hi + 1; // below the key only when hi is the last entry
        }

        return Search(p, from + 1, hi - 1, key, entrySize, out found);
    }

    /// <summary>The child index whose range holds <paramref name="key"/>.</summary>
    public static int SearchBranch(byte* p, long key)
    {
        var lo = 1;
        var hi = GetCount(p) - 1;
        while (lo <= hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            var k = KeyAt(p, mid, BranchEntrySize);
            if (k == key)
            {
                return mid;
            }

            if (k < key)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        return lo - 1;
    }

    /// <summary>Binary search of a leaf's entries [<paramref name="lo"/>, <paramref name="hi"/>] for the first key >= <paramref name="key"/>.</summary>
    private static int Search(byte* p, int lo, int hi, long key, int entrySize, out bool found)
    {
        while (lo <= hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            var k = KeyAt(p, mid, entrySize);
            if (k == key)
            {
                found = true;
                return mid;
            }

            if (k < key)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        found = false;
        return lo;
    }

    /// <summary>Opens a gap at <paramref name="index"/> and returns it; the caller checked room.</summary>
    public static byte* InsertAt(byte* p, int index)
    {
        var entrySize = EntrySize(p);
        var count = GetCount(p);
        var at = Entry(p, index, entrySize);
        Buffer.MemoryCopy(at, at + entrySize, (count - index) * entrySize, (count - index) * entrySize);
        SetCount(p, count + 1);
        return at;
    }

    public static void RemoveAt(byte* p, int index)
    {
        var entrySize = EntrySize(p);
        var count = GetCount(p);
        var at = Entry(p, index, entrySize);
        Buffer.MemoryCopy(at + entrySize, at, (count - index - 1) * entrySize, (count - index - 1) * entrySize);
        SetCount(p, count - 1);
    }
}
