using System.Numerics;
using System.Runtime.CompilerServices;

namespace Ingest.Storage.Paging;

/// <summary>CRC-32C (Castagnoli) using the hardware instruction, eight bytes at a time.</summary>
internal static unsafe class Checksum
{
    public const uint Seed = 0xFFFFFFFF;

    public static uint Update(uint crc, byte* data, long length)
    {
        // Three independent streams hide the instruction's latency on long inputs.
        if (length >= 3 * 256)
        {
            var third = (length / 3) & ~7L;
            uint c1 = 0xFFFFFFFF, c2 = 0xFFFFFFFF;
            byte* p0 = data, p1 = data + third, p2 = data + (2 * third);
            for (long i = 0; i < third; i += 8)
            {
                crc = BitOperations.Crc32C(crc, Unsafe.ReadUnaligned<ulong>(p0 + i));
                c1 = BitOperations.Crc32C(c1, Unsafe.ReadUnaligned<ulong>(p1 + i));
                c2 = BitOperations.Crc32C(c2, Unsafe.ReadUnaligned<ulong>(p2 + i));
            }

            // Not a mathematical combination of the three CRCs: the result is simply a different,
            // still position-sensitive 32-bit digest. It is only ever compared with itself.
            crc = BitOperations.Crc32C(crc, ((ulong)c1 << 32) | c2);
            data += 3 * third;
            length -= 3 * third;
        }

        while (length >= 8)
        {
            crc = BitOperations.Crc32C(crc, Unsafe.ReadUnaligned<ulong>(data));
            data += 8;
            length -= 8;
        }

        while (length > 0)
        {
            crc = BitOperations.Crc32C(crc, *data);
            data++;
            length--;
        }

        return crc;
    }

    public static uint Finish(uint crc) => ~crc;

    public static uint Compute(byte* data, long length) => Finish(Update(Seed, data, length));

    public static uint Compute(ReadOnlySpan<byte> data)
    {
        fixed (byte* p = data)
        {
            return Compute(p, data.Length);
        }
    }
}
