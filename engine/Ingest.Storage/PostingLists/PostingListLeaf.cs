using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// A read-only view of one encoded posting-list leaf: a sorted, duplicate-free run of
/// non-negative int64 ids packed into a fixed-size buffer (a page body). Little-endian:
/// <code>
///  0         8         16      20      24     26    27       32
///  +---------+---------+-------+-------+------+-----+--------+
///  | FirstId | LastId  | Count | Used  | Blks | Ver | 0 (5)  |   header
///  +---------+---------+-------+-------+------+-----+--------+
///  | block entry 0 | block entry 1 | ... | block entry Blks-1  |   directory, 16 bytes each
///  +-----------------------------------------------------------+
///  | packed deltas of block 0 | of block 1 | ...               |   data region
///  +-----------------------------------------------------------+
///  | 8 zero bytes                                              |   pad; ends at Used
///  +-----------------------------------------------------------+   (rest of the buffer unused)
///
///  block entry
///  0         8          12        14     15
///  +---------+----------+---------+------+-----+
///  | FirstId | MinDelta | DataOff | Bits | N-1 |
///  +---------+----------+---------+------+-----+
///  FirstId   i64  first id of the block (absolute)
///  MinDelta  u32  frame of reference for the deltas of this block
///  DataOff   u16  offset of the block's packed deltas from the start of the data region
///  Bits      u8   width of each packed value, 0..63
///  N-1       u8   the block holds N = 1..128 ids
///
///  packed deltas: the N-1 values v_i = (id_i - id_(i-1)) - MinDelta, i = 1..N-1, each Bits
///  wide, LSB-first, back to back: v_i occupies bits [(i-1)*Bits, i*Bits) of the block's data,
///  which is ceil((N-1)*Bits/8) bytes long.
///
///  An empty leaf is the header (Count 0, Blks 0, FirstId = LastId = -1) and the pad.
/// </code>
/// Why this shape. Blocks of 128 with their own width and frame of reference: a width fits the
/// local density, so one outlier gap costs only its own block, and decoding is the same few
/// branch-free instructions per id (one unaligned 8-byte load at bit offset i*Bits, shift, mask,
/// add MinDelta, running sum) with no per-word selector to dispatch on, as Simple-8b would need.
/// Ids are unique, so every delta is at least 1; MinDelta absorbs that and any constant stride,
/// making consecutive (or evenly spaced) ids 0 bits wide: such a block is just its 16-byte entry,
/// one bit per id, and decodes as an arithmetic sequence. MinDelta is clamped to u32 (any value
/// up to the true minimum is correct), which keeps entries at 16 bytes; gaps up to long.MaxValue
/// still fit in 63 bits. Absolute FirstIds in a directory ahead of the data let a seek binary-search
/// blocks and decode only one; the header's FirstId/LastId let the tree route without decoding.
/// The 8-byte pad keeps every whole-word read of the last block inside the encoded bytes.
/// </summary>
internal readonly ref struct PostingListLeaf
{
    public const int HeaderSize = 32;
    public const int BlockEntrySize = 16;
    public const int PadSize = 8;
    public const int MaxIdsPerBlock = 128;
    public const byte FormatVersion = 1;

    /// <summary>Smallest buffer a leaf can be written into: the header, one block entry and the pad.</summary>
    public const int MinCapacity = HeaderSize + BlockEntrySize + PadSize;

    /// <summary>Largest buffer: data offsets are 16-bit.</summary>
    public const int MaxCapacity = 64 * 1024;

    private const int CountOffset = 16;
    private const int UsedOffset = 20;
    private const int BlockCountOffset = 24;
    private const int VersionOffset = 26;

    private readonly ReadOnlySpan<byte> _bytes;

    /// <summary>Opens an encoded leaf; <paramref name="encoded"/> may be longer than the leaf's used bytes.</summary>
    /// <exception cref="InvalidDataException">The header is inconsistent with itself or with the buffer.</exception>
    public PostingListLeaf(ReadOnlySpan<byte> encoded)
    {
        if (encoded.Length < HeaderSize + PadSize)
        {
            throw new InvalidDataException($"A posting-list leaf needs at least {HeaderSize + PadSize} bytes, got {encoded.Length}.");
        }

        _bytes = encoded;
        var blocks = BlockCount;
        var used = UsedBytes;
        if (encoded[VersionOffset] != FormatVersion || used > encoded.Length || used < HeaderSize + (blocks * BlockEntrySize) + PadSize
            || Count < blocks || Count > blocks * MaxIdsPerBlock || used > MaxCapacity)
        {
            throw new InvalidDataException($"Corrupt posting-list leaf header (version {encoded[VersionOffset]}, {Count} ids, {blocks} blocks, {used} bytes used, {encoded.Length} available).");
        }
    }

    public long FirstId => BinaryPrimitives.ReadInt64LittleEndian(_bytes);

    public long LastId => BinaryPrimitives.ReadInt64LittleEndian(_bytes[8..]);

    public int Count => BinaryPrimitives.ReadInt32LittleEndian(_bytes[CountOffset..]);

    /// <summary>Bytes of the buffer the leaf occupies, header and pad included.</summary>
    public int UsedBytes => BinaryPrimitives.ReadInt32LittleEndian(_bytes[UsedOffset..]);

    public int BlockCount => BinaryPrimitives.ReadUInt16LittleEndian(_bytes[BlockCountOffset..]);

    public bool IsEmpty => Count == 0;

    /// <summary>Most blocks a buffer of <paramref name="capacity"/> bytes can hold (each needs at least its entry).</summary>
    public static int MaxBlockCount(int capacity) => (capacity - HeaderSize - PadSize) / BlockEntrySize;

    /// <summary>First id of block <paramref name="index"/>, read from the directory without decoding.</summary>
    public long BlockFirstId(int index)
    {
        return Entry(index).FirstId;
    }

    /// <summary>Number of ids in block <paramref name="index"/>.</summary>
    public int BlockIdCount(int index) => Entry(index).IdCount;

    /// <summary>Decodes block <paramref name="index"/> into <paramref name="destination"/> (at least <see cref="MaxIdsPerBlock"/> long, or the block's count); returns the number of ids written.</summary>
    public int DecodeBlock(int index, Span<long> destination)
    {
        var packed = EncodedBlock(index, out var entry);
        var n = entry.IdCount;
        if (destination.Length < n)
        {
            throw new ArgumentException($"The destination holds {destination.Length} ids; block {index} has {n}.", nameof(destination));
        }

        // EncodedBlock checked that PadSize readable bytes follow the packed deltas.
        PackedDeltas.Unpack(
            ref MemoryMarshal.GetReference(packed),
            entry.BitWidth,
            entry.FirstId,
            entry.MinDelta,
            n,
            ref MemoryMarshal.GetReference(destination));
        return n;
    }

    /// <summary>The block directory; entries are not validated (see <see cref="EncodedBlock"/>).</summary>
    internal ReadOnlySpan<PostingListBlockEntry> Directory => MemoryMarshal.Cast<byte, PostingListBlockEntry>(_bytes.Slice(HeaderSize, BlockCount * BlockEntrySize));

    /// <summary>The packed deltas of all blocks, back to back (the data region without the pad).</summary>
    internal ReadOnlySpan<byte> Data => _bytes[(HeaderSize + (BlockCount * BlockEntrySize))..(UsedBytes - PadSize)];

    /// <summary>The directory entry and packed deltas of block <paramref name="index"/>, checked to lie (with the pad's slack) inside the leaf.</summary>
    internal ReadOnlySpan<byte> EncodedBlock(int index, out PostingListBlockEntry entry)
    {
        entry = Entry(index);
        var offset = HeaderSize + (BlockCount * BlockEntrySize) + entry.DataOffset;
        var packedBytes = PackedDeltas.ByteCount(entry.IdCount - 1, entry.BitWidth);
        if (entry.BitWidth > 63 || offset + packedBytes + PadSize > UsedBytes)
        {
            throw new InvalidDataException($"Corrupt posting-list block {index}: {entry.BitWidth} bits at offset {offset} run past the leaf's {UsedBytes} bytes.");
        }

        return _bytes.Slice(offset, packedBytes);
    }

    /// <summary>Decodes the whole leaf into <paramref name="destination"/>, which must hold <see cref="Count"/> ids; returns <see cref="Count"/>.</summary>
    public int Decode(Span<long> destination)
    {
        var written = 0;
        var blocks = BlockCount;
        for (var b = 0; b < blocks; b++)
        {
            written += DecodeBlock(b, destination[written..]);
        }

        return written;
    }

    /// <summary>Index of the block that holds <paramref name="id"/> if the leaf has it: the last block whose first id is &lt;= id, or 0.</summary>
    public int FindBlock(long id)
    {
        var lo = 0;
        var hi = BlockCount - 1;
        while (lo < hi)
        {
            var mid = (int)((uint)(lo + hi + 1) >> 1);
            if (Entry(mid).FirstId <= id)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }

        return lo;
    }

    public bool Contains(long id) => TrySeek(id, out var found) && found == id;

    /// <summary>Finds the first id &gt;= <paramref name="id"/> in this leaf, decoding at most one block.</summary>
    public bool TrySeek(long id, out long found)
    {
        if (Count == 0 || id > LastId)
        {
            found = 0;
            return false;
        }

        if (id <= FirstId)
        {
            found = FirstId;
            return true;
        }

        var block = FindBlock(id);
        var entry = Entry(block);
        if (entry.BitWidth == 0)
        {
            // An arithmetic sequence: no need to decode. id > entry.FirstId here.
            var step = (long)entry.MinDelta;
            var last = entry.FirstId + ((entry.IdCount - 1) * step);
            if (id <= last)
            {
                var k = (id - entry.FirstId + step - 1) / step;
                found = entry.FirstId + (k * step);
                return true;
            }
        }
        else
        {
            Span<long> ids = stackalloc long[MaxIdsPerBlock];
            var n = DecodeBlock(block, ids);
            var i = LowerBound(ids[..n], id);
            if (i < n)
            {
                found = ids[i];
                return true;
            }
        }

        // Past the end of this block: the answer is the next block's first id (id <= LastId guarantees one exists).
        found = Entry(block + 1).FirstId;
        return true;
    }

    public PostingListLeafEnumerator GetIds() => new(this);

    /// <summary>
    /// Encodes as many of <paramref name="ids"/> (sorted, unique, non-negative) as fit into
    /// <paramref name="destination"/> and returns how many that was; the leaf's size is then its
    /// <see cref="UsedBytes"/>. An empty input writes a valid empty leaf.
    /// </summary>
    /// <exception cref="ArgumentException">The ids are not strictly increasing or one is negative.</exception>
    public static int Encode(ReadOnlySpan<long> ids, Span<byte> destination)
    {
        PostingListBlockEntry[]? rented = null;
        var maxBlocks = MaxBlockCount(Math.Min(destination.Length, MaxCapacity));
        var entries = maxBlocks <= 512
            ? stackalloc PostingListBlockEntry[512]
            : (rented = System.Buffers.ArrayPool<PostingListBlockEntry>.Shared.Rent(maxBlocks));
        try
        {
            var writer = new PostingListLeafWriter(destination, entries);
            var taken = 0;
            while (taken < ids.Length)
            {
                var block = ids.Slice(taken, Math.Min(MaxIdsPerBlock, ids.Length - taken));
                var appended = writer.Append(block);
                taken += appended;
                if (appended < block.Length)
                {
                    break;
                }
            }

            writer.Finish();
            return taken;
        }
        finally
        {
            if (rented != null)
            {
                System.Buffers.ArrayPool<PostingListBlockEntry>.Shared.Return(rented);
            }
        }
    }

    /// <summary>Index of the first element of <paramref name="ids"/> that is &gt;= <paramref name="id"/>.</summary>
    internal static int LowerBound(ReadOnlySpan<long> ids, long id)
    {
        var lo = 0;
        var hi = ids.Length;
        while (lo < hi)
        {
            var mid = (int)((uint)(lo + hi) >> 1);
            if (ids[mid] < id)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    internal static void WriteHeader(Span<byte> destination, long firstId, long lastId, int count, int usedBytes, int blockCount)
    {
        BinaryPrimitives.WriteInt64LittleEndian(destination, firstId);
        BinaryPrimitives.WriteInt64LittleEndian(destination[8..], lastId);
        BinaryPrimitives.WriteInt32LittleEndian(destination[CountOffset..], count);
        BinaryPrimitives.WriteInt32LittleEndian(destination[UsedOffset..], usedBytes);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[BlockCountOffset..], (ushort)blockCount);
        destination[VersionOffset] = FormatVersion;
        destination[(VersionOffset + 1)..HeaderSize].Clear();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private PostingListBlockEntry Entry(int index)
    {
        if ((uint)index >= (uint)BlockCount)
        {
            ThrowBlockIndex(index);
        }

        return MemoryMarshal.Read<PostingListBlockEntry>(_bytes.Slice(HeaderSize + (index * BlockEntrySize), BlockEntrySize));
    }

    private static void ThrowBlockIndex(int index) => throw new ArgumentOutOfRangeException(nameof(index), index, "No such block in this leaf.");
}
