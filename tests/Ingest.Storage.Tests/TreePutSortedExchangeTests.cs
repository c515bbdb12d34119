using System.Buffers.Binary;
using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests;

/// <summary>
/// <see cref="Tree.PutSorted(ReadOnlySpan{ReadOnlyMemory{byte}}, ReadOnlySpan{byte}, int, Span{byte}, Span{bool})"/>:
/// random sorted batches of 8-byte values against a SortedDictionary, checking the previous value it
/// hands back for every key, through splits, commits, aborts and flushes; and its refusals.
/// </summary>
public sealed class TreePutSortedExchangeTests
{
    [Fact]
    public void Random_sorted_exchanges_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, batches: 40 * TestSeed.Scale, keys: 8_000));

    [Fact]
    public void Sorted_exchanges_on_a_small_key_space_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, batches: 80 * TestSeed.Scale, keys: 200));

    [Fact]
    public void Keys_out_of_order_are_refused_before_anything_is_written()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        ReadOnlyMemory<byte>[] keys = [new byte[] { 1 }, new byte[] { 3 }, new byte[] { 2 }];
        var error = Assert.Throws<ArgumentException>(() => tree.PutSorted(keys, new byte[3 * 8], 8, new byte[3 * 8], new bool[3]));
        Assert.Contains("strictly ascending order (index 2)", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, tree.Count);

        ReadOnlyMemory<byte>[] twice = [new byte[] { 1 }, new byte[] { 1 }];
        Assert.Throws<ArgumentException>(() => tree.PutSorted(twice, new byte[2 * 8], 8, new byte[2 * 8], new bool[2]));
        Assert.Throws<ArgumentException>(() => tree.PutSorted(keys[..1], new byte[7], 8, new byte[8], new bool[1]));
        Assert.Equal(0, tree.Count);
    }

    [Fact]
    public void A_previous_value_of_another_size_is_reported_as_bad_data()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("a"u8, "four"u8);
        ReadOnlyMemory<byte>[] keys = [new byte[] { (byte)'a' }];
        var error = Assert.Throws<InvalidDataException>(() => tree.PutSorted(keys, new byte[8], 8, new byte[8], new bool[1]));
        Assert.Contains("4-byte value, not 8 bytes", error.Message, StringComparison.Ordinal);
    }

    private static void RunModel(int seed, int batches, int keys)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var keySpace = Enumerable.Range(0, keys).Select(_ => MakeKey(rnd)).DistinctBy(Convert.ToHexString).Order(ByteArrayComparer.Instance).ToArray();
        var committed = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
        long next = 1;
        for (var b = 0; b < batches; b++)
        {
            var working = new SortedDictionary<byte[], byte[]>(committed, ByteArrayComparer.Instance);
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("model");
                for (var step = rnd.Next(1, 4); step > 0; step--)
                {
                    var batch = rnd.Next(3) == 0 ? keySpace[rnd.Next(keySpace.Length)..] : [.. keySpace.Where(_ => rnd.Next(8) == 0)];
                    var values = new byte[batch.Length * 8];
                    for (var i = 0; i < batch.Length; i++)
                    {
                        BinaryPrimitives.WriteInt64LittleEndian(values.AsSpan(i * 8), next++);
                    }

                    var previous = new byte[values.Length];
                    previous.AsSpan().Fill(0xEE);
                    var had = new bool[batch.Length];
                    had.AsSpan().Fill(true);
                    tree.PutSorted(batch.Select(k => (ReadOnlyMemory<byte>)k).ToArray(), values, 8, previous, had);
                    for (var i = 0; i < batch.Length; i++)
                    {
                        var existed = working.TryGetValue(batch[i], out var old);
                        Assert.Equal(existed, had[i]);
                        if (existed)
                        {
                            Assert.Equal(old, previous.AsSpan(i * 8, 8).ToArray());
                        }

                        working[batch[i]] = values.AsSpan(i * 8, 8).ToArray();
                    }

                    TreeModelTests.Verify(tree, working);
                }

                if (rnd.Next(6) == 0)
                {
                    continue; // abort
                }

                tx.Commit();
                committed = working;
            }

            using (var read = env.BeginRead())
            {
                TreeModelTests.Verify(read.OpenTree("model")!, committed);
            }

            if (rnd.Next(8) == 0)
            {
                env.FlushNow();
            }
        }

        Assert.True(env.Verify().IsClean);
    }

    private static byte[] MakeKey(Random rnd)
    {
        var key = new byte[rnd.Next(20) == 0 ? rnd.Next(100, 600) : rnd.Next(1, 30)];
        rnd.NextBytes(key);
        return key;
    }
}
