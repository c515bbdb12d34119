using System.Text;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// Kafka's default key partitioner (the Java client's, <c>murmur2_random</c> in librdkafka): murmur2 of the key's
/// bytes, made positive, modulo the partition count. The simulation places each document in the partition Kafka
/// would, so a shard (a set of partitions) holds what it would hold in production.
/// </summary>
internal static class KafkaPartitioner
{
    public static int Partition(string key, int partitions) => (Murmur2(Encoding.UTF8.GetBytes(key)) & 0x7fffffff) % partitions;

    /// <summary>Kafka's <c>Utils.murmur2</c>, bit for bit (seed 0x9747b28c; Java's signed ints and unsigned shifts).</summary>
    public static int Murmur2(ReadOnlySpan<byte> data)
    {
        const uint m = 0x5bd1e995;
        const int r = 24;
        var length = data.Length;
        var h = 0x9747b28c ^ (uint)length;
        var whole = length / 4;
        for (var i = 0; i < whole; i++)
        {
            var k = (uint)(data[i * 4] | (data[(i * 4) + 1] << 8) | (data[(i * 4) + 2] << 16) | (data[(i * 4) + 3] << 24));
            k *= m;
            k ^= k >> r;
            k *= m;
            h *= m;
            h ^= k;
        }

        var tail = length & ~3;
        switch (length % 4)
        {
            case 3:
                h ^= (uint)data[tail + 2] << 16;
                h ^= (uint)data[tail + 1] << 8;
                h ^= data[tail];
                h *= m;
                break;
            case 2:
                h ^= (uint)data[tail + 1] << 8;
                h ^= data[tail];
                h *= m;
                break;
            case 1:
                h ^= data[tail];
                h *= m;
                break;
        }

        h ^= h >> 13;
        h *= m;
        h ^= h >> 15;
        return unchecked((int)h);
    }
}
