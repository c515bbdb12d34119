using System.Buffers.Binary;
using System.Numerics;

namespace Ingest.Storage.Backup;

/// <summary>
/// CRC-32C over a stream that arrives in chunks of any size: the writer's buffer flushes and the reader's reads
/// split an entry differently, so this is the plain sequential CRC (Paging.Checksum interleaves three streams on
/// long inputs, which makes its result depend on how the input is cut).
/// </summary>
internal static class BackupChecksum
{
    public const uint Seed = 0xFFFFFFFF;

    public static uint Update(uint crc, ReadOnlySpan<byte> data)
    {
        while (data.Length >= 8)
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data[8..];
        }

        foreach (var b in data)
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return crc;
    }

    public static uint Finish(uint crc) => ~crc;
}
