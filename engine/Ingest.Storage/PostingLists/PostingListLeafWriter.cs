using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// Fills one leaf buffer block by block (format on <see cref="PostingListLeaf"/>). Packed data is
/// written straight into the buffer behind the header and the directory entries are kept in a
/// caller-provided scratch span; <see cref="Finish"/> slides the data up by the directory's size
/// (one memmove of at most a page) and writes the directory and header in front of it.
/// </summary>
internal ref struct PostingListLeafWriter
{
    private readonly Span<byte> _buffer;
    private readonly Span<PostingListBlockEntry> _entries;
    private readonly int _capacity;
    private int _blockCount;
    private int _dataBytes;
    private int _count;
    private long _firstId;

    /// <summary>The last id written, or, after a block copied as is (<see cref="_lastIdExact"/> false), that block's first id.</summary>
    private long _lastId;
    private bool _lastIdExact;

    /// <param name="buffer">Where the leaf goes; its length (at most <see cref="PostingListLeaf.MaxCapacity"/> is used) is the leaf's capacity.</param>
    /// <param name="entryScratch">At least <see cref="PostingListLeaf.MaxBlockCount"/>(capacity) entries.</param>
    public PostingListLeafWriter(Span<byte> buffer, Span<PostingListBlockEntry> entryScratch)
    {
        _capacity = Math.Min(buffer.Length, PostingListLeaf.MaxCapacity);
        if (_capacity < PostingListLeaf.MinCapacity)
        {
            throw new ArgumentException($"A posting-list leaf needs at least {PostingListLeaf.MinCapacity} bytes, got {buffer.Length}.", nameof(buffer));
        }

        if (entryScratch.Length < PostingListLeaf.MaxBlockCount(_capacity))
        {
            throw new ArgumentException($"The scratch holds {entryScratch.Length} entries; a {_capacity}-byte leaf can need {PostingListLeaf.MaxBlockCount(_capacity)}.", nameof(entryScratch));
        }

        _buffer = buffer[.._capacity];
        _entries = entryScratch;
        _lastId = -1;
        _lastIdExact = true;
    }

    public readonly int Count => _count;

    /// <summary>Bytes the leaf would occupy if finished now.</summary>
    public readonly int UsedBytes => PostingListLeaf.HeaderSize + (_blockCount * PostingListLeaf.BlockEntrySize) + _dataBytes + PostingListLeaf.PadSize;

    /// <summary>
    /// Appends up to <see cref="PostingListLeaf.MaxIdsPerBlock"/> ids, all greater than those
    /// already written and strictly increasing, as one block; when the whole block does not fit,
    /// appends the longest prefix that does. Returns the number of ids appended (0 when full).
    /// </summary>
    /// <exception cref="ArgumentException">The ids are not strictly increasing, not above the last id written, or negative.</exception>
    public int Append(scoped ReadOnlySpan<long> ids)
    {
        var n = ids.Length;
        if (n == 0)
        {
            return 0;
        }

        if (n > PostingListLeaf.MaxIdsPerBlock)
        {
            throw new ArgumentException($"A block holds at most {PostingListLeaf.MaxIdsPerBlock} ids, got {n}.", nameof(ids));
        }

        if (ids[0] <= ExactLastId())
        {
            // _lastId starts at -1, so this also rejects negative ids.
            ThrowOutOfOrder(ids[0], _lastId);
        }

        var free = _capacity - UsedBytes - PostingListLeaf.BlockEntrySize;
        if (free < 0)
        {
            return 0;
        }

        long minDelta = long.MaxValue;
        long maxDelta = 0;
        var increasing = true;
        for (var i = 1; i < n; i++)
        {
            // Compare, not subtract-and-test: a negative id after a large one would wrap to a positive delta.
            increasing &= ids[i] > ids[i - 1];
            var delta = ids[i] - ids[i - 1];
            minDelta = Math.Min(minDelta, delta);
            maxDelta = Math.Max(maxDelta, delta);
        }

        if (!increasing)
        {
            ThrowNotIncreasing(ids);
        }

        if (n == 1)
        {
            // No deltas: an empty arithmetic sequence of step 1.
            minDelta = maxDelta = 1;
        }

        minDelta = Math.Min(minDelta, uint.MaxValue);
        var bitWidth = PackedDeltas.BitWidth((ulong)(maxDelta - minDelta));
        if (n > 1 && PackedDeltas.ByteCount(n - 1, bitWidth) > free)
        {
            n = LongestPrefixThatFits(ids, free, out minDelta, out bitWidth);
        }

        WriteBlock(ids[..n], minDelta, bitWidth);
        return n;
    }

    /// <summary>Writes the header and directory; returns the leaf's used bytes. The writer must not be used afterwards.</summary>
    public int Finish()
    {
        var lastId = ExactLastId();
        var directoryBytes = _blockCount * PostingListLeaf.BlockEntrySize;
        var dataStart = PostingListLeaf.HeaderSize + directoryBytes;
        if (directoryBytes > 0)
        {
            _buffer.Slice(PostingListLeaf.HeaderSize, _dataBytes).CopyTo(_buffer[dataStart..]);
            MemoryMarshal.AsBytes(_entries[.._blockCount]).CopyTo(_buffer[PostingListLeaf.HeaderSize..]);
        }

        var used = UsedBytes;
        _buffer.Slice(dataStart + _dataBytes, PostingListLeaf.PadSize).Clear();
        PostingListLeaf.WriteHeader(_buffer, _count == 0 ? -1 : _firstId, lastId, _count, used, _blockCount);
        return used;
    }

    private void WriteBlock(scoped ReadOnlySpan<long> ids, long minDelta, int bitWidth)
    {
        ref var data = ref Unsafe.Add(ref MemoryMarshal.GetReference(_buffer), PostingListLeaf.HeaderSize + _dataBytes);
        var packed = PackedDeltas.Pack(ids, minDelta, bitWidth, ref data);
        _entries[_blockCount] = new PostingListBlockEntry
        {
            FirstId = ids[0],
            MinDelta = (uint)minDelta,
            DataOffset = (ushort)_dataBytes,
            BitWidth = (byte)bitWidth,
            CountMinusOne = (byte)(ids.Length - 1),
        };

        if (_count == 0)
        {
            _firstId = ids[0];
        }

        _blockCount++;
        _dataBytes += packed;
        _count += ids.Length;
        _lastId = ids[^1];
        _lastIdExact = true;
    }

    /// <summary>
    /// Appends whole blocks of another leaf as they are encoded, without decoding them: as many
    /// of <paramref name="entries"/> as fit, their packed deltas copied from
    /// <paramref name="data"/> (the other leaf's data region) in one move. Returns how many.
    /// The merge uses this for runs of blocks a batch does not touch. The blocks must come after
    /// the ids already written; the last one's last id is only worked out (by decoding it here)
    /// if a later append or <see cref="Finish"/> needs it.
    /// </summary>
    /// <exception cref="InvalidDataException">The entries do not describe consecutive blocks inside <paramref name="data"/>.</exception>
    public int AppendEncoded(scoped ReadOnlySpan<PostingListBlockEntry> entries, scoped ReadOnlySpan<byte> data)
    {
        if (entries.IsEmpty)
        {
            return 0;
        }

        if (entries[0].FirstId <= _lastId)
        {
            ThrowOutOfOrder(entries[0].FirstId, _lastId);
        }

        int start = entries[0].DataOffset;
        var end = start;
        var room = _capacity - UsedBytes;
        var previousFirst = _lastId;
        var ids = 0;
        var taken = 0;
        for (; taken < entries.Length; taken++)
        {
            ref readonly var entry = ref entries[taken];
            if (entry.DataOffset != end || entry.BitWidth > 63 || entry.FirstId <= previousFirst)
            {
                throw new InvalidDataException($"Corrupt posting-list block directory at entry {taken}: offset {entry.DataOffset} (expected {end}), {entry.BitWidth} bits, first id {entry.FirstId} after {previousFirst}.");
            }

            var bytes = PackedDeltas.ByteCount(entry.IdCount - 1, entry.BitWidth);
            if (PostingListLeaf.BlockEntrySize + bytes > room)
            {
                break;
            }

            room -= PostingListLeaf.BlockEntrySize + bytes;
            end += bytes;
            ids += entry.IdCount;
            previousFirst = entry.FirstId;
        }

        if (taken == 0)
        {
            return 0;
        }

        if (end > data.Length)
        {
            throw new InvalidDataException($"Corrupt posting-list blocks: packed deltas run to {end}, past the data region's {data.Length} bytes.");
        }

        data[start..end].CopyTo(_buffer[(PostingListLeaf.HeaderSize + _dataBytes)..]);
        var shift = _dataBytes - start;
        for (var i = 0; i < taken; i++)
        {
            var copy = entries[i];
            copy.DataOffset = (ushort)(copy.DataOffset + shift);
            _entries[_blockCount + i] = copy;
        }

        if (_count == 0)
        {
            _firstId = entries[0].FirstId;
        }

        ref readonly var last = ref entries[taken - 1];
        _blockCount += taken;
        _dataBytes += end - start;
        _count += ids;
        _lastId = last.FirstId;
        _lastIdExact = last.IdCount == 1;
        return taken;
    }

    /// <summary>The last id written; after a block copied as is, decodes that block from this buffer (its data has not moved yet, and the pad's room follows it).</summary>
    private long ExactLastId()
    {
        if (!_lastIdExact)
        {
            var entry = _entries[_blockCount - 1];
            Span<long> ids = stackalloc long[PostingListLeaf.MaxIdsPerBlock];
            PackedDeltas.Unpack(
                ref Unsafe.Add(ref MemoryMarshal.GetReference(_buffer), PostingListLeaf.HeaderSize + entry.DataOffset),
                entry.BitWidth,
                entry.FirstId,
                entry.MinDelta,
                entry.IdCount,
                ref MemoryMarshal.GetReference(ids));
            _lastId = ids[entry.IdCount - 1];
            _lastIdExact = true;
        }

        return _lastId;
    }

    /// <summary>The page is nearly full: find the most ids of this block that still fit in <paramref name="free"/> bytes (one id always does).</summary>
    private static int LongestPrefixThatFits(ReadOnlySpan<long> ids, int free, out long minDelta, out int bitWidth)
    {
        var best = 1;
        minDelta = 1;
        bitWidth = 0;
        long min = long.MaxValue;
        long max = 0;
        for (var k = 2; k <= ids.Length; k++)
        {
            var delta = ids[k - 1] - ids[k - 2];
            min = Math.Min(min, delta);
            max = Math.Max(max, delta);
            var clamped = Math.Min(min, uint.MaxValue);
            var width = PackedDeltas.BitWidth((ulong)(max - clamped));
            if (PackedDeltas.ByteCount(k - 1, width) <= free)
            {
                best = k;
                minDelta = clamped;
                bitWidth = width;
            }
        }

        return best;
    }

    private static void ThrowOutOfOrder(long id, long lastId) =>
        throw new ArgumentException(lastId < 0
            ? $"Posting-list ids must be non-negative, got {id}."
            : $"Posting-list ids must be strictly increasing: {id} follows {lastId}.");

    private static void ThrowNotIncreasing(ReadOnlySpan<long> ids)
    {
        for (var i = 1; i < ids.Length; i++)
        {
            if (ids[i] <= ids[i - 1])
            {
                throw new ArgumentException($"Posting-list ids must be strictly increasing: {ids[i]} follows {ids[i - 1]} at index {i}.");
            }
        }
    }
}
