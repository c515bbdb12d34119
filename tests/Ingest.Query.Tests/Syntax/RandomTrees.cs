using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>The random shapes both query generators build: and/or/not trees over their own leaves, short lists.</summary>
internal static class RandomTrees
{
    /// <summary>A condition up to <paramref name="depth"/> levels: a leaf, or not / and / or of smaller conditions.</summary>
    public static QueryFilter Filter(Random random, int depth, Func<QueryFilter> leaf)
    {
        if (depth <= 1 || random.Next(3) == 0)
        {
            return leaf();
        }

        return random.Next(5) switch
        {
            0 => new NotFilter(Filter(random, depth - 1, leaf), default),
            1 or 2 => new AndFilter(Filter(random, depth - 1, leaf), Filter(random, depth - 1, leaf), default),
            _ => new OrFilter(Filter(random, depth - 1, leaf), Filter(random, depth - 1, leaf), default),
        };
    }

    public static List<T> List<T>(Random random, int min, int max, Func<T> item)
    {
        var count = random.Next(min, max + 1);
        var list = new List<T>(count);
        for (var i = 0; i < count; i++)
        {
            list.Add(item());
        }

        return list;
    }
}
