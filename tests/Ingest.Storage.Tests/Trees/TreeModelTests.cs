using Ingest.Storage.Trees;

namespace Ingest.Storage.Tests.Trees;

/// <summary>Random operations against a Tree and a SortedDictionary, with commits, aborts and reopens.</summary>
public sealed class TreeModelTests
{
    [Fact]
    public void Random_operations_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, operations: 6_000 * TestSeed.Scale, keys: 1_500));

    [Fact]
    public void Random_operations_on_a_deeper_tree_match_a_sorted_dictionary() => TestSeed.Run(seed => RunModel(seed, operations: 12_000 * TestSeed.Scale, keys: 12_000));

    private static void RunModel(int seed, int operations, int keys)
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var committed = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        var keySpace = Enumerable.Range(0, keys).Select(i => MakeKey(rnd, i)).DistinctBy(Convert.ToHexString).ToArray();

        var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
        try
        {
            var done = 0;
            while (done < operations)
            {
                var working = new SortedDictionary<byte[], byte[]>(committed, ByteArrayComparer.Instance);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree("model");
                    var steps = rnd.Next(1, operations / 15);
                    for (var s = 0; s < steps; s++, done++)
                    {
                        Step(rnd, tree, working, keySpace);
                    }

                    Verify(tree, working);
                    if (rnd.Next(5) == 0)
                    {
                        continue; // abort
                    }

                    tx.Commit();
                    committed = working;
                }

                using (var read = env.BeginRead())
                {
                    Verify(read.OpenTree("model")!, committed);
                }

                env = Disturb(rnd, env, dir, outOf: 10);
            }

            using var final = env.BeginRead();
            Verify(final.OpenTree("model")!, committed);
        }
        finally
        {
            env.Dispose();
        }
    }

    /// <summary>One time in <paramref name="outOf"/> each: reopens, crashes and recovers, or flushes the environment.</summary>
    internal static StorageEnvironment Disturb(Random rnd, StorageEnvironment env, TestDirectory dir, int outOf)
    {
        switch (rnd.Next(outOf))
        {
            case 0:
                env.Dispose();
                return StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
            case 1:
                env.SimulateCrashOnDispose = true;
                env.Dispose();
                return StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: rnd.Next(2) == 0));
            case 2:
                env.FlushNow();
                return env;
            default:
                return env;
        }
    }

    private static byte[] MakeKey(Random rnd, int i)
    {
        var length = rnd.Next(20) switch
        {
            0 => rnd.Next(200, Tree.MaxKeySize + 1),
            1 => 0,
            _ => rnd.Next(1, 40),
        };
        var key = new byte[length];
        rnd.NextBytes(key);
        if (length >= 4 && rnd.Next(2) == 0)
        {
            "users/"u8[..Math.Min(6, length)].CopyTo(key); // shared prefixes are common
        }

        return key;
    }

    private static byte[] MakeValue(Random rnd)
    {
        var length = rnd.Next(30) switch
        {
            0 => rnd.Next(2_000, 40_000),
            1 => 0,
            _ => rnd.Next(1, 300),
        };
        var value = new byte[length];
        rnd.NextBytes(value);
        return value;
    }

    private static void Step(Random rnd, Tree tree, SortedDictionary<byte[], byte[]> model, byte[][] keySpace)
    {
        var key = keySpace[rnd.Next(keySpace.Length)];
        switch (rnd.Next(100))
        {
            case < 50:
                var value = MakeValue(rnd);
                tree.Put(key, value);
                model[key] = value;
                break;
            case < 75:
                Assert.Equal(model.Remove(key), tree.Delete(key));
                break;
            case < 90:
                var found = tree.TryGet(key, out var v);
                Assert.Equal(model.TryGetValue(key, out var expected), found);
                if (found)
                {
                    Assert.True(v.SequenceEqual(expected!));
                }

                break;
            case < 95:
                var batch = keySpace.Where(_ => rnd.Next(8) == 0).Distinct().Order(ByteArrayComparer.Instance).ToArray();
                var removed = batch.Count(model.Remove);
                Assert.Equal(removed, tree.DeleteSorted(batch));
                break;
            default:
                CheckRange(rnd, tree, model, key);
                break;
        }
    }

    private static void CheckRange(Random rnd, Tree tree, SortedDictionary<byte[], byte[]> model, byte[] from)
    {
        var cursor = tree.CreateCursor();
        var expected = model.Keys.Where(k => ByteArrayComparer.Instance.Compare(k, from) >= 0).Take(30).ToList();
        var ok = cursor.Seek(from);
        Assert.Equal(expected.Count > 0, ok);
        foreach (var k in expected)
        {
            Assert.True(ok);
            Assert.True(cursor.Key.SequenceEqual(k));
            Assert.True(cursor.Value.SequenceEqual(model[k]));
            ok = cursor.MoveNext();
        }

        if (expected.Count > 0 && rnd.Next(2) == 0)
        {
            // Walk back from the seek position.
            cursor.Seek(from);
            var before = model.Keys.Where(k => ByteArrayComparer.Instance.Compare(k, expected[0]) < 0).Reverse().Take(10).ToList();
            foreach (var k in before)
            {
                Assert.True(cursor.MovePrev());
                Assert.True(cursor.Key.SequenceEqual(k));
            }
        }
    }

    internal static void Verify(Tree tree, SortedDictionary<byte[], byte[]> model)
    {
        Assert.Equal(model.Count, tree.Count);
        var cursor = tree.CreateCursor();
        var ok = cursor.First();
        foreach (var (k, v) in model)
        {
            Assert.True(ok, "tree has fewer entries than the model");
            Assert.True(cursor.Key.SequenceEqual(k), "key mismatch");
            Assert.True(cursor.Value.SequenceEqual(v), "value mismatch");
            ok = cursor.MoveNext();
        }

        Assert.False(ok, "tree has more entries than the model");
        ok = cursor.Last();
        foreach (var k in model.Keys.Reverse())
        {
            Assert.True(ok);
            Assert.True(cursor.Key.SequenceEqual(k));
            ok = cursor.MovePrev();
        }

        Assert.False(ok);
    }
}
