using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

/// <summary>
/// Random sorted batches (<see cref="Tree.PutSorted"/>, <see cref="Tree.DeleteSorted(ReadOnlySpan{byte[]})"/>)
/// against a SortedDictionary: dense and sparse batches, batches that empty whole leaves or the whole
/// tree (collapsing it to a root leaf), overflow values, commits, aborts and flushes.
/// </summary>
public sealed class TreeSortedBatchModelTests
{
    [Fact]
    public void Random_sorted_batches_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, batches: 60 * TestSeed.Scale, keys: 6_000));

    [Fact]
    public void Sorted_batches_on_a_small_key_space_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, batches: 120 * TestSeed.Scale, keys: 300));

    private static void RunModel(int seed, int batches, int keys)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var keySpace = Enumerable.Range(0, keys).Select(i => MakeKey(rnd, i)).DistinctBy(Convert.ToHexString).Order(ByteArrayComparer.Instance).ToArray();
        var committed = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
        for (var b = 0; b < batches; b++)
        {
            var working = new SortedDictionary<byte[], byte[]>(committed, ByteArrayComparer.Instance);
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("model");
                for (var step = rnd.Next(1, 4); step > 0; step--)
                {
                    var batch = PickSortedBatch(rnd, keySpace);
                    if (rnd.Next(5) < 3)
                    {
                        var values = batch.Select(_ => MakeValue(rnd)).ToArray();
                        tree.PutSorted(batch, values);
                        for (var i = 0; i < batch.Length; i++)
                        {
                            working[batch[i]] = values[i];
                        }
                    }
                    else
                    {
                        var removed = batch.Count(working.Remove);
                        Assert.Equal(removed, tree.DeleteSorted(batch));
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

    /// <summary>A run of neighbouring keys (empties leaves), a sparse sample, everything, or a few.</summary>
    private static byte[][] PickSortedBatch(Random rnd, byte[][] keySpace)
    {
        switch (rnd.Next(6))
        {
            case 0:
                return keySpace;
            case 1 or 2:
                var start = rnd.Next(keySpace.Length);
                return keySpace[start..Math.Min(keySpace.Length, start + rnd.Next(1, keySpace.Length / 2))];
            case 3:
                return [.. keySpace.Where(_ => rnd.Next(20) == 0)];
            default:
                var keep = rnd.Next(2, 6);
                return [.. keySpace.Where(_ => rnd.Next(keep) != 0)];
        }
    }

    private static byte[] MakeKey(Random rnd, int i)
    {
        var key = new byte[rnd.Next(20) == 0 ? rnd.Next(100, 600) : rnd.Next(1, 30)];
        rnd.NextBytes(key);
        if (key.Length >= 6 && i % 2 == 0)
        {
            "users/"u8.CopyTo(key); // shared prefixes are common
        }

        return key;
    }

    private static byte[] MakeValue(Random rnd)
    {
        var value = new byte[rnd.Next(40) switch
        {
            0 => rnd.Next(2_000, 20_000),
            1 => 0,
            _ => rnd.Next(1, 200),
        }];
        rnd.NextBytes(value);
        return value;
    }
}
