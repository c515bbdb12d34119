using Ingest.Storage.Trees;
using Ingest.Testing;

namespace Ingest.Storage.Tests.Trees;

/// <summary>
/// <see cref="TreeCursor.VisitForward"/> and <see cref="TreeCursor.VisitBackward"/> hand over exactly the model's keys
/// between the cursor and the bound, in order, with their values (overflow values included), and leave the cursor on
/// the first key not visited: for a bound at every key of a tree of many leaves (so at every leaf's first and last
/// key), between keys, before and past all of them, after runs of deletes that empty and merge leaves, when the
/// visitor stops early, in the writer's own pages and in a read snapshot taken before later writes.
/// </summary>
public sealed class TreeCursorVisitTests
{
    [Fact]
    public void A_bound_at_every_key_visits_the_keys_before_it_in_both_directions() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var model = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        Fill(tree, model, random, 3_000);
        Assert.True(TreeStats.LeafPages(tree) > 20, $"{TreeStats.LeafPages(tree)} leaves");

        var keys = model.Keys.ToList();
        var cursor = tree.CreateCursor();
        for (var i = 0; i < keys.Count; i++)
        {
            // Forward from the first key to keys[i]: the i keys before it, the cursor left on it.
            Assert.True(cursor.First());
            var counter = new Counter(int.MaxValue);
            Assert.Equal(i, cursor.VisitForward(keys[i], ref counter));
            Assert.Equal(i, counter.Visited);
            Assert.True(cursor.IsValid);
            Assert.Equal(keys[i], cursor.Key.ToArray());

            // Backward from the last key down to keys[i]: the keys from it on, the cursor left on the one before.
            Assert.True(cursor.Last());
            counter = new Counter(int.MaxValue);
            Assert.Equal(keys.Count - i, cursor.VisitBackward(keys[i], ref counter));
            Assert.Equal(i > 0, cursor.IsValid);
            if (i > 0)
            {
                Assert.Equal(keys[i - 1], cursor.Key.ToArray());
            }
        }
    });

    [Fact]
    public void Visits_match_the_model_after_deletes_in_the_writer_and_in_an_older_snapshot() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var model = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using (var tx = env.BeginWrite())
        {
            Fill(tx.CreateTree("t"), model, random, 8_000);
            tx.Commit();
        }

        using var before = env.BeginRead();
        var beforeModel = new SortedDictionary<byte[], byte[]>(model, ByteArrayComparer.Instance);
        for (var round = 0; round < 3; round++)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree("t")!;

                // A run of deletes in the middle empties whole leaves (they merge away); scattered ones leave others thin.
                var all = model.Keys.ToList();
                var start = random.Next(all.Count / 4, all.Count / 2);
                foreach (var key in all.Skip(start).Take(random.Next(500, 2_000)).Concat(all.Where(_ => random.Next(4) == 0)).Distinct().ToList())
                {
                    Assert.True(tree.Delete(key));
                    model.Remove(key);
                }

                Walks(tree, model, random);
                tx.Commit();
            }

            using var read = env.BeginRead();
            Walks(read.OpenTree("t")!, model, random);
        }

        Walks(before.OpenTree("t")!, beforeModel, random);
    });

    [Fact]
    public void An_empty_range_visits_nothing_and_leaves_the_cursor_where_it_was()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        var cursor = tree.CreateCursor();
        var counter = new Counter(int.MaxValue);
        Assert.False(cursor.First()); // an empty tree: nothing to visit either way
        Assert.Equal(0, cursor.VisitForward(Keys.Of("z"), ref counter));
        Assert.Equal(0, cursor.VisitBackward(Keys.Of("a"), ref counter));

        for (var i = 0; i < 2_000; i++)
        {
            tree.Put(Keys.Of(i * 2), Keys.Of(i));
        }

        Assert.True(cursor.Seek(Keys.Of(700)));
        Assert.Equal(0, cursor.VisitForward(Keys.Of(700), ref counter)); // the end is the cursor's own key
        Assert.Equal(0, cursor.VisitForward(Keys.Of(9), ref counter)); // the end is before the cursor
        Assert.Equal(Keys.Of(700), cursor.Key.ToArray());
        Assert.Equal(0, cursor.VisitBackward(Keys.Of(701), ref counter)); // the start is after the cursor
        Assert.Equal(Keys.Of(700), cursor.Key.ToArray());
        Assert.Equal(0, counter.Visited);

        Assert.True(cursor.Seek(Keys.Of(701)));
        Assert.Equal(0, cursor.VisitForward(Keys.Of(702), ref counter)); // no key between 701 and 702
        Assert.Equal(Keys.Of(702), cursor.Key.ToArray());
    }

    /// <summary>Walks from random seeks to random bounds both ways, whole and stopped early, against the model.</summary>
    private static void Walks(Tree tree, SortedDictionary<byte[], byte[]> model, Random random)
    {
        var keys = model.Keys.ToList();
        var cursor = tree.CreateCursor();

        // The whole tree each way.
        Assert.True(cursor.First());
        var all = new Collector(model, int.MaxValue);
        Assert.Equal(keys.Count, cursor.VisitForward(Bound(0xFF), ref all));
        Assert.Equal(keys, all.Keys);
        Assert.False(cursor.IsValid);
        Assert.True(cursor.Last());
        all = new Collector(model, int.MaxValue);
        Assert.Equal(keys.Count, cursor.VisitBackward([], ref all));
        Assert.Equal(Enumerable.Reverse(keys), all.Keys);
        Assert.False(cursor.IsValid);

        for (var s = 0; s < 60; s++)
        {
            var from = RandomKey(random, keys);
            var to = RandomKey(random, keys);
            if (ByteArrayComparer.Instance.Compare(from, to) > 0)
            {
                (from, to) = (to, from);
            }

            var stopAfter = random.Next(3) == 0 ? random.Next(1, 400) : int.MaxValue;
            var lo = LowerBound(keys, from);
            var hi = LowerBound(keys, to);
            if (!cursor.Seek(from))
            {
                Assert.Equal(keys.Count, lo);
                continue;
            }

            var forward = new Collector(model, stopAfter);
            cursor.VisitForward(to, ref forward);
            var expected = keys.Skip(lo).Take(Math.Min(hi - lo, stopAfter)).ToList();
            Assert.Equal(expected, forward.Keys);
            AssertOn(cursor, keys, lo + expected.Count);

            // Backward from the last key below `to` down to `from`.
            var last = hi - 1;
            if (last < 0)
            {
                continue;
            }

            Assert.True(cursor.Seek(keys[last]));
            var backward = new Collector(model, stopAfter);
            cursor.VisitBackward(from, ref backward);
            expected = [.. Enumerable.Range(0, Math.Min(Math.Max(0, last - lo + 1), stopAfter)).Select(i => keys[last - i])];
            Assert.Equal(expected, backward.Keys);
            AssertOn(cursor, keys, last - expected.Count);
        }
    }

    private static void AssertOn(TreeCursor cursor, List<byte[]> keys, int index)
    {
        Assert.Equal(index >= 0 && index < keys.Count, cursor.IsValid);
        if (cursor.IsValid)
        {
            Assert.Equal(keys[index], cursor.Key.ToArray());
        }
    }

    private static int LowerBound(List<byte[]> keys, byte[] key)
    {
        var at = keys.BinarySearch(key, ByteArrayComparer.Instance);
        return at < 0 ? ~at : at;
    }

    /// <summary>An existing key, a key just past one (between keys), or a key before or past them all.</summary>
    private static byte[] RandomKey(Random random, List<byte[]> keys) => random.Next(10) switch
    {
        0 => [],
        1 => Bound(0xFF),
        < 6 => keys[random.Next(keys.Count)],
        _ => [.. keys[random.Next(keys.Count)], 0],
    };

    private static byte[] Bound(byte b) => [b, b, b];

    /// <summary>Keys of 1-60 random bytes (sharing prefixes, so slot prefixes tie), values of 0-40 bytes and one in 50 past a page (an overflow run).</summary>
    private static void Fill(Tree tree, SortedDictionary<byte[], byte[]> model, Random random, int count)
    {
        while (model.Count < count)
        {
            var key = new byte[random.Next(1, 60)];
            random.NextBytes(key);
            key[0] = (byte)random.Next(0x20, 0xF0); // below the bound 0xFF 0xFF 0xFF
            if (key.Length > 4 && random.Next(2) == 0)
            {
                key.AsSpan(0, 4).Fill(0x41);
            }

            var value = new byte[random.Next(50) == 0 ? random.Next(9_000, 20_000) : random.Next(0, 40)];
            random.NextBytes(value);
            tree.Put(key, value);
            model[key] = value;
        }
    }

    /// <summary>Counts entries; stops after <c>stopAfter</c>.</summary>
    private struct Counter(int stopAfter) : ITreeEntryVisitor
    {
        public int Visited { get; private set; }

        public bool Visit(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => ++Visited < stopAfter;
    }

    /// <summary>Collects the keys visited, checking each value against the model; stops after <c>stopAfter</c>.</summary>
    private readonly struct Collector(SortedDictionary<byte[], byte[]> model, int stopAfter) : ITreeEntryVisitor
    {
        public List<byte[]> Keys { get; } = [];

        public bool Visit(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            var copy = key.ToArray();
            Assert.True(value.SequenceEqual(model[copy]));
            Keys.Add(copy);
            return Keys.Count < stopAfter;
        }
    }
}
