using System.Numerics;
using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Journal;

/// <summary>
/// <see cref="Checksum.Compute(byte*, long)"/> of the concatenation of scattered pieces, without
/// concatenating them: the same three streams over the same ranges, each fed eight bytes at a time
/// across piece boundaries, so the digest equals the one recovery computes over the contiguous payload.
/// </summary>
internal static unsafe class PiecewiseChecksum
{
    public static uint Compute(IoVector* pieces, int count, long length)
    {
        var crc = Checksum.Seed;
        long done = 0;
        if (length >= 3 * 256)
        {
            var third = (length / 3) & ~7L;
            crc = Update(crc, pieces, count, 0, third);
            var c1 = Update(Checksum.Seed, pieces, count, third, 2 * third);
            var c2 = Update(Checksum.Seed, pieces, count, 2 * third, 3 * third);
            crc = BitOperations.Crc32C(crc, ((ulong)c1 << 32) | c2);
            done = 3 * third;
        }

        return Checksum.Finish(Update(crc, pieces, count, done, length));
    }

    /// <summary>Feeds bytes [from, to) of the concatenation eight at a time, then the last few one at a time.</summary>
    private static uint Update(uint crc, IoVector* pieces, int count, long from, long to)
    {
        ulong carry = 0;
        var carried = 0;
        long start = 0;
        for (var i = 0; i < count && start < to; i++)
        {
            var length = (long)pieces[i].Length;
            var end = start + length;
            if (end > from)
            {
                var p = pieces[i].Base + Math.Max(0, from - start);
                var n = Math.Min(end, to) - Math.Max(start, from);
                while (carried > 0 && n > 0)
                {
                    carry |= (ulong)*p << (8 * carried);
                    p++;
                    n--;
                    if (++carried == 8)
                    {
                        crc = BitOperations.Crc32C(crc, carry);
                        carry = 0;
                        carried = 0;
                    }
                }

                for (; n >= 8; n -= 8, p += 8)
                {
                    crc = BitOperations.Crc32C(crc, Unsafe.ReadUnaligned<ulong>(p));
                }

                for (; n > 0; n--, p++)
                {
                    carry |= (ulong)*p << (8 * carried);
                    carried++;
                }
            }

            start = end;
        }

        for (var b = 0; b < carried; b++)
        {
            crc = BitOperations.Crc32C(crc, (byte)(carry >> (8 * b)));
        }

        return crc;
    }
}
