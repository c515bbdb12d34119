using System.Globalization;
using System.Text;
using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.Execution;

/// <summary>Ordered pages (top-k batches, keyset continuation) agree with a brute-force full sort of the documents.</summary>
public sealed class TopKTests
{
    private static readonly IndexDefinition Definition = new(
        "Things/Sorted",
        ["Things"],
        [
            new IndexFieldDefinition("N", "N", IndexFieldType.Number),
            new IndexFieldDefinition("K", "K", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("At", "At", IndexFieldType.DateTime),
        ]);

    private static readonly string[] Words = ["alpha", "Beta", "gamma", "DELTA", "épée", "Zulu", "beta", ""];

    [Fact]
    public async Task Randomized_ordered_pages_agree_with_a_full_sort()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        var things = Enumerable.Range(0, 1500).Select(i => RandomThing(random, i)).ToList();
        await using var host = await QueryHost.OpenAsync(Definition);
        await host.PutAsync("Things", things.Select(t => (t.Id, t.Json)));
        await host.CatchUpAsync(Definition.Name);

        for (var q = 0; q < 40 * TestSeed.Scale; q++)
        {
            var keys = Enumerable.Range(0, random.Next(1, 3)).Select(_ => (Field: new[] { "N", "K", "Tags", "At", "Id" }[random.Next(5)], Descending: random.Next(2) == 0)).ToList();
            var orderBy = string.Join(", ", keys.Select(k => k.Field + (k.Descending ? " desc" : "")));
            var expected = things.Order(Comparer<Thing>.Create((a, b) => Compare(a, b, keys))).Select(t => t.Id).ToList();
            var limit = random.Next(1, 60);
            var offset = random.Next(0, 80);

            var page = await host.QueryAsync($"from index '{Definition.Name}' order by {orderBy} limit {limit} offset {offset}");
            Assert.True(
                expected.Skip(offset).Take(limit).SequenceEqual(QueryHost.Ids(page)),
                $"order by {orderBy} limit {limit} offset {offset} (seed {seed}): expected {string.Join(",", expected.Skip(offset).Take(limit))} got {string.Join(",", QueryHost.Ids(page))}");

            // The rest by continuation, a page at a time, gives the rest of the full sort.
            var rest = new List<string>();
            for (var token = page.Continuation; token != null;)
            {
                var next = await host.QueryAsync($"from index '{Definition.Name}' order by {orderBy} limit {limit * 7} offset {offset}", continuation: token);
                rest.AddRange(QueryHost.Ids(next));
                token = next.Continuation;
            }

            Assert.True(expected.Skip(offset + limit).SequenceEqual(rest), $"continuation of order by {orderBy} (seed {seed})");
        }
    }

    private static int Compare(Thing a, Thing b, List<(string Field, bool Descending)> keys)
    {
        foreach (var (field, descending) in keys)
        {
            var (x, y) = (a.Key(field), b.Key(field));
            if (x == null || y == null)
            {
                if (x != null || y != null)
                {
                    return x == null ? 1 : -1; // missing last in both directions
                }

                continue;
            }

            var c = x is double dx ? dx.CompareTo((double)y) : x is long lx ? lx.CompareTo((long)y) : ((byte[])x).AsSpan().SequenceCompareTo((byte[])y);
            if (c != 0)
            {
                return descending ? -c : c;
            }
        }

        return a.Number.CompareTo(b.Number); // entries are numbered in insertion order
    }

    private static Thing RandomThing(Random random, int number)
    {
        var fields = new Dictionary<string, object?>();
        switch (random.Next(6))
        {
            case 0:
                break; // missing
            case 1:
                fields["N"] = "12"; // wrong type: no value
                break;
            case 2:
                fields["N"] = new[] { random.Next(5), random.Next(5) }; // an array where a value is wanted: no value
                break;
            default:
                fields["N"] = random.Next(3) == 0 ? random.Next(-3, 3) : Math.Round((random.NextDouble() * 200) - 100, 2);
                break;
        }

        if (random.Next(5) != 0)
        {
            fields["K"] = Words[random.Next(Words.Length)];
        }

        if (random.Next(4) != 0)
        {
            fields["Tags"] = Enumerable.Range(0, random.Next(0, 4)).Select(_ => Words[random.Next(Words.Length)]).ToArray();
        }

        if (random.Next(4) != 0)
        {
            fields["At"] = new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddMinutes(random.Next(0, 5000)).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);
        }

        var id = $"things/{(char)('a' + random.Next(26))}{number}";
        return new Thing(id, number, QueryHost.Json(fields), fields);
    }

    private sealed record Thing(string Id, int Number, string Json, Dictionary<string, object?> Fields)
    {
        /// <summary>The sort key the semantics give: the number, the smallest folded keyword, ticks, the folded id; null when missing.</summary>
        public object? Key(string field)
        {
            switch (field)
            {
                case "Id":
                    return Encoding.UTF8.GetBytes(Id.ToLowerInvariant());
                case "N":
                    return Fields.GetValueOrDefault("N") switch { int i => (double)i, double d => d, _ => null };
                case "K":
                    return Fields.GetValueOrDefault("K") is string k ? Encoding.UTF8.GetBytes(k.ToLowerInvariant()) : null;
                case "Tags":
                    return Fields.GetValueOrDefault("Tags") is string[] { Length: > 0 } tags
                        ? tags.Select(t => Encoding.UTF8.GetBytes(t.ToLowerInvariant())).Order(Comparer<byte[]>.Create((x, y) => x.AsSpan().SequenceCompareTo(y))).First()
                        : null;
                default:
                    return Fields.GetValueOrDefault("At") is string at ? DateTime.Parse(at, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal).Ticks : null;
            }
        }
    }
}
