using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Trees;

/// <summary>
/// A B+Tree page: a slotted page whose slot array is kept in key order, entries stored from the end.
/// <code>
///  0            16      18      20           22       24                 32
///  +------------+-------+-------+------------+--------+------------------+---------------------+
///  | PageHeader | count | upper | fragmented | unused | tree entry count | u64 slots[count]     |
///  | (TreeLeaf/ |  u16  |  u16  |    u16     |        | u64 (root only)  | ... free ...         |
///  | TreeBranch)|       |       |            |        |                  | entries [upper, 8192)|
///  +------------+-------+-------+------------+--------+------------------+---------------------+
///  slot:         bits 0-15 entry offset | bits 16-31 unused | bits 32-63 the key's first 4 bytes,
///                big-endian, zero-padded: binary search compares these in the slot array and only
///                touches an entry (another cache line) when they are equal
///  leaf entry:   u16 key length | u8 flags | u8 unused | u32 value length | key | value
///                (flags bit 0 = overflow: the value is in an overflow run; the entry holds its u64 page number)
///  branch entry: u64 child page | u16 key length | key     (entry 0's key is empty: minus infinity)
///  upper:        start of the entry heap; 0 stands for 8192 (an empty heap)
///  fragmented:   bytes of dead entries in the heap, reclaimed by compaction
/// </code>
/// A tree's root page never moves: when the root splits its content moves to a new child.
/// </summary>
internal static unsafe class TreePage
{
    public const int HeaderSize = 32;
    public const int SlotSize = 8;
    public const int Capacity = PageHeader.PageSize - HeaderSize;
    public const int LeafEntryHeader = 8;
    public const int BranchEntryHeader = 10;
    public const byte OverflowFlag = 1;

    /// <summary>No entry (with its slot) is larger than this, so any split leaves both halves fitting.</summary>
    public const int MaxEntryWithSlot = Capacity / 4;
    public const int MaxKeySize = 2000;

    /// <summary>A page below this many used bytes is merged with a sibling when it shrinks.</summary>
    public const int MinFill = Capacity / 4;

    /// <summary>The most entries a leaf can hold (all keys and values empty).</summary>
    public const int MaxLeafEntries = Capacity / (SlotSize + LeafEntryHeader);

    /// <summary>
    /// Makes <paramref name="p"/> an empty tree page. Only the header is cleared: entries overwrite the
    /// heap, and commit zeroes the unused middle (see PageHole) before the checksum, so clearing all
    /// 8 KiB here (twice for a split's new page) only cost time.
    /// </summary>
    public static void Initialize(byte* p, long pageNumber, bool isLeaf)
    {
        new Span<byte>(p, HeaderSize).Clear();
        *(long*)p = pageNumber;
        p[PageHeader.TypeOffset] = (byte)(isLeaf ? PageType.TreeLeaf : PageType.TreeBranch);
        SetUpper(p, PageHeader.PageSize);
    }

    /// <summary>Empties a page, keeping its number, type as given and the tree entry count.</summary>
    public static void Reset(byte* p, bool isLeaf)
    {
        var number = PageHeader.GetPageNumber(p);
        var treeCount = GetTreeCount(p);
        Initialize(p, number, isLeaf);
        SetTreeCount(p, treeCount);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsLeaf(byte* p) => p[PageHeader.TypeOffset] == (byte)PageType.TreeLeaf;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int GetCount(byte* p) => *(ushort*)(p + 16);

    private static void SetCount(byte* p, int v) => *(ushort*)(p + 16) = (ushort)v;

    public static int GetUpper(byte* p)
    {
        var upper = *(ushort*)(p + 18);
        return upper == 0 ? PageHeader.PageSize : upper;
    }

    private static void SetUpper(byte* p, int v) => *(ushort*)(p + 18) = (ushort)(v == PageHeader.PageSize ? 0 : v);

    public static int GetFragmented(byte* p) => *(ushort*)(p + 20);

    private static void SetFragmented(byte* p, int v) => *(ushort*)(p + 20) = (ushort)v;

    public static long GetTreeCount(byte* p) => *(long*)(p + 24);

    public static void SetTreeCount(byte* p, long v) => *(long*)(p + 24) = v;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong* Slots(byte* p) => (ulong*)(p + HeaderSize);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte* Entry(byte* p, int i) => p + (ushort)Slots(p)[i];

    public static int FreeContiguous(byte* p) => GetUpper(p) - HeaderSize - (SlotSize * GetCount(p));

    /// <summary>Bytes used by entries and their slots.</summary>
    public static int Used(byte* p) => PageHeader.PageSize - GetUpper(p) - GetFragmented(p) + (SlotSize * GetCount(p));

    // Leaf entries
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> LeafKey(byte* e) => new(e + LeafEntryHeader, *(ushort*)e);

    public static bool IsOverflow(byte* e) => (e[2] & OverflowFlag) != 0;

    public static int LeafValueLength(byte* e) => *(int*)(e + 4);

    public static byte* LeafValue(byte* e) => e + LeafEntryHeader + *(ushort*)e;

    public static long OverflowPageOf(byte* e) => *(long*)LeafValue(e);

    public static int LeafEntrySize(byte* e) => LeafEntryHeader + *(ushort*)e + (IsOverflow(e) ? 8 : *(int*)(e + 4));

    public static int LeafEntrySize(int keyLength, int valueLength, bool overflow) => LeafEntryHeader + keyLength + (overflow ? 8 : valueLength);

    public static int WriteLeafEntry(byte* dst, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        *(ushort*)dst = (ushort)key.Length;
        dst[2] = 0;
        dst[3] = 0;
        *(int*)(dst + 4) = value.Length;
        key.CopyTo(new Span<byte>(dst + LeafEntryHeader, key.Length));
        value.CopyTo(new Span<byte>(dst + LeafEntryHeader + key.Length, value.Length));
        return LeafEntryHeader + key.Length + value.Length;
    }

    public static int WriteOverflowLeafEntry(byte* dst, ReadOnlySpan<byte> key, int valueLength, long overflowPage)
    {
        *(ushort*)dst = (ushort)key.Length;
        dst[2] = OverflowFlag;
        dst[3] = 0;
        *(int*)(dst + 4) = valueLength;
        key.CopyTo(new Span<byte>(dst + LeafEntryHeader, key.Length));
        *(long*)(dst + LeafEntryHeader + key.Length) = overflowPage;
        return LeafEntryHeader + key.Length + 8;
    }

    // Branch entries
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long BranchChild(byte* e) => *(long*)e;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> BranchKey(byte* e) => new(e + BranchEntryHeader, *(ushort*)(e + 8));

    public static int BranchEntrySize(byte* e) => BranchEntryHeader + *(ushort*)(e + 8);

    public static int WriteBranchEntry(byte* dst, long child, ReadOnlySpan<byte> key)
    {
        *(long*)dst = child;
        *(ushort*)(dst + 8) = (ushort)key.Length;
        key.CopyTo(new Span<byte>(dst + BranchEntryHeader, key.Length));
        return BranchEntryHeader + key.Length;
    }

    public static int EntrySize(byte* p, byte* e) => IsLeaf(p) ? LeafEntrySize(e) : BranchEntrySize(e);

    /// <summary>The first four bytes of a key as a big-endian integer, zero-padded: ordering these orders the keys, ties aside.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint Prefix(ReadOnlySpan<byte> key)
    {
        if (key.Length >= 4)
        {
            return BinaryPrimitives.ReadUInt32BigEndian(key);
        }

        uint v = 0;
        for (var i = 0; i < 4; i++)
        {
            v = (v << 8) | (i < key.Length ? key[i] : 0u);
        }

        return v;
    }

    /// <summary>
    /// Unsigned lexicographic comparison. Keys usually differ in their first bytes, so the first
    /// eight are compared as one big-endian integer before falling back to a full comparison.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CompareKeys(byte* stored, int storedLength, ReadOnlySpan<byte> key)
    {
        if (storedLength >= 8 && key.Length >= 8)
        {
            var x = BinaryPrimitives.ReverseEndianness(Unsafe.ReadUnaligned<ulong>(stored));
            var y = BinaryPrimitives.ReverseEndianness(Unsafe.ReadUnaligned<ulong>(ref MemoryMarshal.GetReference(key)));
            if (x != y)
            {
                return x < y ? -1 : 1;
            }
        }

        return new ReadOnlySpan<byte>(stored, storedLength).SequenceCompareTo(key);
    }

    /// <summary><see cref="CompareKeys(byte*, int, ReadOnlySpan{byte})"/> for two spans.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CompareKeys(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length >= 8 && b.Length >= 8)
        {
            var x = BinaryPrimitives.ReadUInt64BigEndian(a);
            var y = BinaryPrimitives.ReadUInt64BigEndian(b);
            if (x != y)
            {
                return x < y ? -1 : 1;
            }
        }

        return a.SequenceCompareTo(b);
    }

    /// <summary>Index of the first key >= <paramref name="key"/> in [from, count); <paramref name="found"/> when equal.</summary>
    public static int SearchLeaf(byte* p, ReadOnlySpan<byte> key, out bool found, int from = 0) =>
        SearchLeaf(p, key, Prefix(key), out found, from, GetCount(p) - 1);

    /// <summary>
    /// <see cref="SearchLeaf(byte*, ReadOnlySpan{byte}, out bool, int)"/> for a key that is likely a few
    /// entries after <paramref name="from"/> (the next key of a sorted batch): probes from, from + 1,
    /// from + 3, from + 7, ... and searches only the last gap, so a dense batch touches one or two slots per key.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // per key or leaf of a sorted batch: see Tree.DeleteSortedCore
    public static int SearchLeafNear(byte* p, ReadOnlySpan<byte> key, out bool found, int from)
    {
        var count = GetCount(p);
        var prefix = Prefix(key);
        var lo = from;
        var probe = from;
        var step = 1;
        while (probe < count)
        {
            var c = CompareSlot(p, probe, prefix, key, branch: false);
            if (c == 0)
            {
                found = true;
                return probe;
            }

            if (c > 0)
            {
                return SearchLeaf(p, key, prefix, out found, lo, probe - 1);
            }

            lo = probe + 1;
            probe += step;
            step <<= 1;
        }

        return SearchLeaf(p, key, prefix, out found, lo, count - 1);
    }

    /// <summary>The slot's key against <paramref name="key"/> (whose <see cref="Prefix"/> is given): the prefixes, then the keys if they tie.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int CompareSlot(byte* p, int index, uint prefix, ReadOnlySpan<byte> key, bool branch)
    {
        var slot = Slots(p)[index];
        var slotPrefix = (uint)(slot >> 32);
        if (slotPrefix != prefix)
        {
            return slotPrefix < prefix ? -1 : 1;
        }

        var e = p + (ushort)slot;
        return branch ? CompareKeys(e + BranchEntryHeader, *(ushort*)(e + 8), key) : CompareKeys(e + LeafEntryHeader, *(ushort*)e, key);
    }

    /// <summary>Index of the first key >= key in [lo, hi + 1); found when equal.</summary>
    private static int SearchLeaf(byte* p, ReadOnlySpan<byte> key, uint prefix, out bool found, int lo, int hi)
    {
        while (lo <= hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            var c = CompareSlot(p, mid, prefix, key, branch: false);
            if (c == 0)
            {
                found = true;
                return mid;
            }

            if (c < 0)
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

    /// <summary>Index of the child whose range holds <paramref name="key"/>: the last entry whose key is &lt;= key (entry 0 is minus infinity).</summary>
    public static int SearchBranch(byte* p, ReadOnlySpan<byte> key) => SearchBranch(p, key, Prefix(key), 1, GetCount(p) - 1);

    /// <summary>
    /// <see cref="SearchBranch(byte*, ReadOnlySpan{byte})"/> when the answer is known to be at least
    /// <paramref name="from"/> and likely close to it (the next leaf of a sorted pass): probes
    /// from + 1, from + 2, from + 4, ... and searches only the last gap.
    /// </summary>
    public static int SearchBranchNear(byte* p, ReadOnlySpan<byte> key, int from)
    {
        var count = GetCount(p);
        var prefix = Prefix(key);
        var lo = from; // entry lo's key <= key (or lo is 0, minus infinity)
        var step = 1;
        while (true)
        {
            var probe = lo + step;
            if (probe >= count)
            {
                return SearchBranch(p, key, prefix, lo + 1, count - 1);
            }

            var c = CompareSlot(p, probe, prefix, key, branch: true);
            if (c == 0)
            {
                return probe;
            }

            if (c > 0)
            {
                return SearchBranch(p, key, prefix, lo + 1, probe - 1);
            }

            lo = probe;
            step <<= 1;
        }
    }

    /// <summary>The last entry in [lo - 1, hi] whose key is &lt;= key, given that entry lo - 1's is (or is minus infinity).</summary>
    private static int SearchBranch(byte* p, ReadOnlySpan<byte> key, uint prefix, int lo, int hi)
    {
        while (lo <= hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            var c = CompareSlot(p, mid, prefix, key, branch: true);
            if (c == 0)
            {
                return mid;
            }

            if (c < 0)
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

    /// <summary>Whether an entry of <paramref name="size"/> bytes fits, possibly after compaction.</summary>
    public static bool Fits(byte* p, int size) => FreeContiguous(p) + GetFragmented(p) >= size + SlotSize;

    /// <summary>Copies an entry in at index <paramref name="index"/>; the caller checked <see cref="Fits"/>.</summary>
    public static void InsertCopy(byte* p, int index, byte* entry, int size, byte* scratch)
    {
        if (FreeContiguous(p) < size + SlotSize)
        {
            Compact(p, scratch);
        }

        var count = GetCount(p);
        var upper = GetUpper(p) - size;
        SetUpper(p, upper);
        Buffer.MemoryCopy(entry, p + upper, size, size);
        var slots = Slots(p);
        if (index < count)
        {
            Buffer.MemoryCopy(slots + index, slots + index + 1, (count - index) * SlotSize, (count - index) * SlotSize);
        }

        var key = IsLeaf(p) ? LeafKey(p + upper) : BranchKey(p + upper);
        slots[index] = (uint)upper | ((ulong)Prefix(key) << 32);
        SetCount(p, count + 1);
    }

    /// <summary>Copies an entry in after the last one (the caller guarantees order and contiguous room).</summary>
    public static void AppendCopy(byte* p, byte* entry, int size) => InsertCopy(p, GetCount(p), entry, size, null);

    public static void RemoveAt(byte* p, int index)
    {
        var count = GetCount(p);
        var slots = Slots(p);
        var offset = (ushort)slots[index];
        var size = EntrySize(p, p + offset);
        if (offset == GetUpper(p))
        {
            SetUpper(p, GetUpper(p) + size);
        }
        else
        {
            SetFragmented(p, GetFragmented(p) + size);
        }

        Buffer.MemoryCopy(slots + index + 1, slots + index, (count - index - 1) * SlotSize, (count - index - 1) * SlotSize);
        SetCount(p, count - 1);
    }

    /// <summary>
    /// Makes a branch's entry 0 minus infinity again (an empty key) after the entry before it was
    /// removed; the key's bytes become fragmentation. Searches never read entry 0's key, but the
    /// layout promises it is empty.
    /// </summary>
    public static void ClearFirstBranchKey(byte* p)
    {
        var e = Entry(p, 0);
        var keyLength = *(ushort*)(e + 8);
        *(ushort*)(e + 8) = 0;
        Slots(p)[0] &= 0xFFFFUL;
        SetFragmented(p, GetFragmented(p) + keyLength);
    }

    /// <summary>Starts rewriting a page from <paramref name="source"/>: its header (number, type, tree count), no entries.</summary>
    public static void BeginRewrite(byte* p, byte* source)
    {
        Buffer.MemoryCopy(source, p, HeaderSize, HeaderSize);
        SetCount(p, 0);
        SetUpper(p, PageHeader.PageSize);
        SetFragmented(p, 0);
    }

    /// <summary>
    /// Appends, in order, the entries of <paramref name="source"/> whose bit in <paramref name="skip"/>
    /// is clear to <paramref name="p"/>, which has no fragmentation and room for them (the caller
    /// checked). Each entry is copied once and its slot keeps its key prefix.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // per key or leaf of a sorted batch: see Tree.DeleteSortedCore
    public static void AppendAllBut(byte* p, byte* source, ulong* skip)
    {
        var count = GetCount(source);
        var sourceSlots = Slots(source);
        var slots = Slots(p);
        var n = GetCount(p);
        var upper = GetUpper(p);
        var leaf = IsLeaf(source);
        for (var k = 0; k < count; k++)
        {
            if ((skip[k >> 6] & (1UL << k)) != 0)
            {
                continue;
            }

            var slot = sourceSlots[k];
            var e = source + (ushort)slot;
            var size = leaf ? LeafEntrySize(e) : BranchEntrySize(e);
            upper -= size;
            Buffer.MemoryCopy(e, p + upper, size, size);
            slots[n++] = (slot & ~0xFFFFUL) | (uint)upper;
        }

        SetUpper(p, upper);
        SetCount(p, n);
    }

    /// <summary>Rewrites the entries contiguously at the end of the page, dropping fragmentation.</summary>
    public static void Compact(byte* p, byte* scratch)
    {
        Buffer.MemoryCopy(p, scratch, PageHeader.PageSize, PageHeader.PageSize);
        var count = GetCount(p);
        var slots = Slots(p);
        var upper = PageHeader.PageSize;
        for (var i = 0; i < count; i++)
        {
            var e = scratch + (ushort)slots[i];
            var size = EntrySize(scratch, e);
            upper -= size;
            Buffer.MemoryCopy(e, p + upper, size, size);
            slots[i] = (slots[i] & ~0xFFFFUL) | (uint)upper;
        }

        SetUpper(p, upper);
        SetFragmented(p, 0);
    }
}
