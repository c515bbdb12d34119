using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// Bit packing of one block's deltas (see <see cref="PostingListLeaf"/> for the layout). Both
/// directions read and write whole 8-byte words at arbitrary byte offsets, so callers guarantee
/// 8 readable (or writable) bytes past the packed data.
/// </summary>
internal static class PackedDeltas
{
    /// <summary>Widest value a single unaligned 8-byte load can extract after a shift of up to 7 bits.</summary>
    private const int MaxSingleLoadWidth = 56;

    public static int ByteCount(int values, int bitWidth) => (int)(((long)values * bitWidth + 7) >> 3);

    /// <summary>Bits needed for <paramref name="value"/> (0 for 0).</summary>
    public static int BitWidth(ulong value) => 64 - System.Numerics.BitOperations.LeadingZeroCount(value);

    /// <summary>
    /// Packs the deltas of <paramref name="ids"/> (ids[i] - ids[i-1] - minDelta, i &gt;= 1) into
    /// <paramref name="destination"/>; returns the packed byte count. May write up to 8 bytes past it.
    /// </summary>
    public static int Pack(ReadOnlySpan<long> ids, long minDelta, int bitWidth, ref byte destination)
    {
        if (bitWidth == 0)
        {
            return 0;
        }

        ulong word = 0;
        var filled = 0;
        var position = 0;
        for (var i = 1; i < ids.Length; i++)
        {
            var value = (ulong)(ids[i] - ids[i - 1] - minDelta);
            word |= value << filled;
            filled += bitWidth;
            if (filled >= 64)
            {
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, position), word);
                position += 8;
                filled -= 64;

                // The bits of value that did not fit; when filled is 0, value >> bitWidth is 0 (bitWidth < 64).
                word = value >> (bitWidth - filled);
            }
        }

        if (filled > 0)
        {
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, position), word);
        }

        return ByteCount(ids.Length - 1, bitWidth);
    }

    /// <summary>Writes <paramref name="count"/> ids: <paramref name="firstId"/>, then the running sum of the unpacked deltas.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Unpack(ref byte source, int bitWidth, long firstId, long minDelta, int count, ref long destination)
    {
        if (bitWidth == 0)
        {
            FillSequence(firstId, minDelta, count, ref destination);
        }
        else if (bitWidth <= MaxSingleLoadWidth)
        {
            UnpackNarrow(ref source, bitWidth, firstId, minDelta, count, ref destination);
        }
        else
        {
            UnpackWide(ref source, bitWidth, firstId, minDelta, count, ref destination);
        }
    }

    private static void FillSequence(long firstId, long step, int count, ref long destination)
    {
        var i = 0;
        if (Vector256.IsHardwareAccelerated && count >= Vector256<long>.Count)
        {
            var current = Vector256.Create(firstId) + (Vector256.Create(0L, 1L, 2L, 3L) * step);
            var stride = Vector256.Create(step * Vector256<long>.Count);
            for (; i <= count - Vector256<long>.Count; i += Vector256<long>.Count)
            {
                current.StoreUnsafe(ref destination, (nuint)i);
                current += stride;
            }
        }

        for (; i < count; i++)
        {
            Unsafe.Add(ref destination, i) = firstId + (i * step);
        }
    }

    private static void UnpackNarrow(ref byte source, int bitWidth, long firstId, long minDelta, int count, ref long destination)
    {
        var mask = (1UL << bitWidth) - 1;
        var current = firstId;
        destination = current;
        var bit = 0;
        var i = 1;

        // Four values per iteration: the loads are independent, only the running sum is serial.
        for (; i + 3 < count; i += 4)
        {
            var b1 = bit + bitWidth;
            var b2 = b1 + bitWidth;
            var b3 = b2 + bitWidth;
            var v0 = (long)((Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, bit >> 3)) >> (bit & 7)) & mask);
            var v1 = (long)((Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, b1 >> 3)) >> (b1 & 7)) & mask);
            var v2 = (long)((Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, b2 >> 3)) >> (b2 & 7)) & mask);
            var v3 = (long)((Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, b3 >> 3)) >> (b3 & 7)) & mask);
            current += v0 + minDelta;
            Unsafe.Add(ref destination, i) = current;
            current += v1 + minDelta;
            Unsafe.Add(ref destination, i + 1) = current;
            current += v2 + minDelta;
            Unsafe.Add(ref destination, i + 2) = current;
            current += v3 + minDelta;
            Unsafe.Add(ref destination, i + 3) = current;
            bit = b3 + bitWidth;
        }

        for (; i < count; i++)
        {
            var v = (long)((Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, bit >> 3)) >> (bit & 7)) & mask);
            current += v + minDelta;
            Unsafe.Add(ref destination, i) = current;
            bit += bitWidth;
        }
    }

    /// <summary>Widths of 57..63 bits (huge gaps): a value can straddle 9 bytes, so take the 9th byte too.</summary>
    private static void UnpackWide(ref byte source, int bitWidth, long firstId, long minDelta, int count, ref long destination)
    {
        var mask = (1UL << bitWidth) - 1;
        var current = firstId;
        destination = current;
        var bit = 0;
        for (var i = 1; i < count; i++)
        {
            var at = bit >> 3;
            var shift = bit & 7;
            var low = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, at)) >> shift;

            // (x << 1) << (63 - shift) is x << (64 - shift) without C#'s shift-count masking: 0 when shift is 0.
            var high = ((ulong)Unsafe.Add(ref source, at + 8) << 1) << (63 - shift);
            current += (long)((low | high) & mask) + minDelta;
            Unsafe.Add(ref destination, i) = current;
            bit += bitWidth;
        }
    }
}
