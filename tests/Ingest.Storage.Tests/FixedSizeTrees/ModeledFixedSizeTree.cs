using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Storage.Tests.FixedSizeTrees;

/// <summary>Puts random values into a fixed-size tree and a sorted model of it, so tests can compare the two.</summary>
internal static class ModeledFixedSizeTree
{
    /// <summary>
    /// Puts <paramref name="count"/> ascending keys from a random start near zero, each <paramref name="gap"/> past the
    /// last (gaps decide how many leaves a range of keys spans and how often a lookup misses).
    /// </summary>
    public static void PutAscending(FixedSizeTree tree, SortedDictionary<long, byte[]> model, Random random, int count, Func<Random, int> gap)
    {
        var key = random.NextInt64(-1_000, 1_000);
        for (var i = 0; i < count; i++)
        {
            key += gap(random);
            Put(tree, model, key, random);
        }
    }

    /// <summary>Puts a random value of the tree's value size under <paramref name="key"/> in both.</summary>
    public static void Put(FixedSizeTree tree, SortedDictionary<long, byte[]> model, long key, Random random)
    {
        var value = new byte[tree.ValueSize];
        random.NextBytes(value);
        tree.Put(key, value);
        model[key] = value;
    }
}
