using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Storage.Tests.FixedSizeTrees;

/// <summary>Random operations against a FixedSizeTree and a SortedDictionary, with commits, aborts and reopens.</summary>
public sealed class FixedSizeTreeModelTests
{
    [Theory]
    [InlineData(8)]
    [InlineData(0)]
    [InlineData(100)]
    public void Random_operations_match_a_sorted_dictionary(int valueSize) => TestSeed.Run(seed => RunModel(seed, valueSize, 10_000 * TestSeed.Scale));

    private static void RunModel(int seed, int valueSize, int operations)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var committed = new SortedDictionary<long, byte[]>();
        var keyRange = rnd.Next(2) == 0 ? 5_000 : 200_000;
        var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        try
        {
            var done = 0;
            while (done < operations)
            {
                var working = new SortedDictionary<long, byte[]>(committed);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateFixedSizeTree("fst", valueSize);
                    var steps = rnd.Next(1, 3_000);
                    for (var s = 0; s < steps; s++, done++)
                    {
                        var key = rnd.Next(4) == 0 ? rnd.NextInt64(long.MinValue, long.MaxValue) % 1000 : rnd.Next(keyRange) - 100;
                        switch (rnd.Next(100))
                        {
                            case < 55:
                                var value = new byte[valueSize];
                                rnd.NextBytes(value);
                                Assert.Equal(!working.ContainsKey(key), tree.Put(key, value));
                                working[key] = value;
                                break;
                            case < 85:
                                Assert.Equal(working.Remove(key), tree.Delete(key));
                                break;
                            case < 98:
                                Assert.Equal(working.TryGetValue(key, out var expected), tree.TryGet(key, out var actual));
                                if (expected != null)
                                {
                                    Assert.True(actual.SequenceEqual(expected));
                                }

                                break;
                            default:
                                CheckRange(tree, working, key);
                                break;
                        }
                    }

                    Verify(tree, working);
                    if (rnd.Next(5) == 0)
                    {
                        continue;
                    }

                    tx.Commit();
                    committed = working;
                }

                using (var read = env.BeginRead())
                {
                    Verify(read.OpenFixedSizeTree("fst")!, committed);
                }

                if (rnd.Next(6) == 0)
                {
                    env.SimulateCrashOnDispose = rnd.Next(2) == 0;
                    env.Dispose();
                    env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
                }
            }
        }
        finally
        {
            env.Dispose();
        }
    }

    private static void CheckRange(FixedSizeTree tree, SortedDictionary<long, byte[]> model, long from)
    {
        var cursor = tree.CreateCursor();
        var expected = model.Keys.Where(k => k >= from).Take(50).ToList();
        var ok = cursor.Seek(from);
        foreach (var k in expected)
        {
            Assert.True(ok);
            Assert.Equal(k, cursor.Key);
            Assert.True(cursor.Value.SequenceEqual(model[k]));
            ok = cursor.MoveNext();
        }

        if (expected.Count < 50)
        {
            Assert.False(ok);
        }
    }

    private static void Verify(FixedSizeTree tree, SortedDictionary<long, byte[]> model)
    {
        Assert.Equal(model.Count, tree.Count);
        var cursor = tree.CreateCursor();
        var ok = cursor.First();
        foreach (var (k, v) in model)
        {
            Assert.True(ok);
            Assert.Equal(k, cursor.Key);
            Assert.True(cursor.Value.SequenceEqual(v));
            ok = cursor.MoveNext();
        }

        Assert.False(ok);
        ok = cursor.Last();
        foreach (var k in model.Keys.Reverse())
        {
            Assert.True(ok);
            Assert.Equal(k, cursor.Key);
            ok = cursor.MovePrev();
        }

        Assert.False(ok);
    }
}
