using System.Globalization;
using System.Text;
using Ingest.Documents;
using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.Execution;

/// <summary>
/// <c>order by F [desc] limit k</c> walks F's terms (TermWalkCandidates), and range / startsWith unions merge without a
/// sort (EntryUnion): both agree with a brute-force filter and sort of the same documents, in both directions, with
/// ties, offsets, filters dense and sparse (the walk, the top-k pass, and the walk giving up for the pass), fields whose
/// path visits arrays, continuation across pages, and documents deleted between pages.
/// </summary>
public sealed class TermWalkTests
{
    private static readonly IndexDefinition Definition = new(
        "Things/Walked",
        ["Things"],
        [
            new IndexFieldDefinition("N", "N", IndexFieldType.Number),
            new IndexFieldDefinition("Prices", "Prices[]", IndexFieldType.Number),
            new IndexFieldDefinition("K", "K", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("At", "At", IndexFieldType.DateTime),
        ]);

    private static readonly string[] Words = ["alpha", "Beta", "gamma", "DELTA", "épée", "Zulu", "beta", "", "bravo"];

    private static readonly string[] OrderFields = ["N", "Prices", "K", "Tags", "At"];

    private static readonly DateTime Epoch = new(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    [Fact]
    public async Task Randomized_term_walks_agree_with_a_brute_force_sort_across_pages()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        var things = Enumerable.Range(0, 2500).Select(i => RandomThing(random, i)).ToList();
        await using var host = await QueryHost.OpenAsync(Definition);
        await host.PutAsync("Things", things.Select(t => (t.Id, t.Json)));
        await host.CatchUpAsync(Definition.Name);

        for (var q = 0; q < 40 * TestSeed.Scale; q++)
        {
            var field = OrderFields[random.Next(OrderFields.Length)];
            var descending = random.Next(2) == 0;
            var (where, filter) = RandomFilter(random);
            var limit = random.Next(1, 80);
            var offset = random.Next(0, 3) == 0 ? random.Next(0, 200) : 0;
            var expected = Sorted(things.Where(filter), field, descending);
            var text = $"from index '{Definition.Name}' {where} order by {field}{(descending ? " desc" : "")} limit {limit} offset {offset}";
            var context = $"{text} (seed {seed})";

            var page = await host.QueryAsync(text);
            Assert.Equal(expected.Count, page.Total);
            AssertSame(expected.Skip(offset).Take(limit), QueryHost.Ids(page), context);

            var rest = new List<string>();
            var pageLimit = Math.Max(25, limit * random.Next(1, 8));
            for (var token = page.Continuation; token != null;)
            {
                var next = await host.QueryAsync($"from index '{Definition.Name}' {where} order by {field}{(descending ? " desc" : "")} limit {pageLimit} offset {offset}", continuation: token);
                rest.AddRange(QueryHost.Ids(next));
                token = next.Continuation;
            }

            AssertSame(expected.Skip(offset + limit), rest, "continuation of " + context);
        }
    }

    [Fact]
    public async Task Continuation_after_deletes_between_pages_returns_the_survivors_in_order()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        for (var round = 0; round < 6 * TestSeed.Scale; round++)
        {
            var things = Enumerable.Range(0, 1200).Select(i => RandomThing(random, i)).ToList();
            await using var host = await QueryHost.OpenAsync(Definition);
            await host.PutAsync("Things", things.Select(t => (t.Id, t.Json)));
            await host.CatchUpAsync(Definition.Name);

            var field = OrderFields[random.Next(OrderFields.Length)];
            var descending = random.Next(2) == 0;
            var (where, filter) = RandomFilter(random);
            var limit = random.Next(5, 60);
            var text = $"from index '{Definition.Name}' {where} order by {field}{(descending ? " desc" : "")} limit {limit}";
            var expected = Sorted(things.Where(filter), field, descending);
            var page = await host.QueryAsync(text);
            AssertSame(expected.Take(limit), QueryHost.Ids(page), $"{text} (seed {seed})");
            if (page.Continuation == null)
            {
                continue;
            }

            // A fifth of the documents go, the first page's last row among them half the time.
            var deleted = things.Where(_ => random.Next(5) == 0).Select(t => t.Id).ToHashSet(StringComparer.Ordinal);
            if (random.Next(2) == 0)
            {
                deleted.Add(QueryHost.Ids(page)[^1]);
            }

            var batch = new WriteBatch();
            foreach (var id in deleted)
            {
                batch.Delete(id);
            }

            await host.Store.WriteAsync(batch);
            await host.CatchUpAsync(Definition.Name);

            var rest = new List<string>();
            for (var token = page.Continuation; token != null;)
            {
                var next = await host.QueryAsync(text, continuation: token);
                rest.AddRange(QueryHost.Ids(next));
                token = next.Continuation;
            }

            AssertSame(expected.Skip(limit).Where(id => !deleted.Contains(id)), rest, $"continuation after deletes of {text} (seed {seed})");
        }
    }

    [Fact]
    public async Task Range_and_prefix_unions_agree_with_a_brute_force_filter()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);

        // Enough documents that wide ranges and prefixes pass the bitmap's threshold (256 ids), narrow ones merge; N and
        // At have thousands of distinct values, so wide ranges over them pass 1,024 terms and read the column instead.
        var things = Enumerable.Range(0, 3000).Select(i => RandomThing(random, i, decimals: 2)).ToList();
        await using var host = await QueryHost.OpenAsync(Definition);
        await host.PutAsync("Things", things.Select(t => (t.Id, t.Json)));
        await host.CatchUpAsync(Definition.Name);

        for (var q = 0; q < 60 * TestSeed.Scale; q++)
        {
            string where;
            Func<Thing, bool> filter;
            switch (random.Next(6))
            {
                case 5:
                {
                    var x = Math.Round((random.NextDouble() * 240) - 120, 2);
                    var greater = random.Next(2) == 0;
                    where = string.Create(CultureInfo.InvariantCulture, $"N {(greater ? ">" : "<=")} {x}");
                    filter = t => t.N is { } n && (greater ? n > x : n <= x);
                    break;
                }

                case 0:
                {
                    var (a, b) = Ordered(Math.Round((random.NextDouble() * 240) - 120, 2), Math.Round((random.NextDouble() * 240) - 120, 2));
                    where = string.Create(CultureInfo.InvariantCulture, $"N between {a} and {b}");
                    filter = t => t.N is { } n && n >= a && n <= b;
                    break;
                }

                case 1:
                {
                    var x = Math.Round((random.NextDouble() * 240) - 120, 1);
                    where = string.Create(CultureInfo.InvariantCulture, $"Prices > {x}");
                    filter = t => t.Prices.Any(p => p > x);
                    break;
                }

                case 2:
                {
                    var (a, b) = Ordered(random.Next(0, 5000), random.Next(0, 5000));
                    where = $"At >= '{Epoch.AddMinutes(a):yyyy-MM-ddTHH:mm:ssZ}' and At < '{Epoch.AddMinutes(b):yyyy-MM-ddTHH:mm:ssZ}'";
                    filter = t => t.AtMinutes is { } m && m >= a && m < b;
                    break;
                }

                case 3:
                {
                    var prefix = new[] { "b", "", "g", "z", "é", "be", "q" }[random.Next(7)];
                    where = $"startsWith(Tags, '{prefix}')";
                    filter = t => t.Tags.Any(w => w.StartsWith(prefix, StringComparison.Ordinal));
                    break;
                }

                default:
                {
                    var prefix = new[] { "b", "", "a", "d", "zu" }[random.Next(5)];
                    where = $"startsWith(K, '{prefix}')";
                    filter = t => t.K is { } k && k.StartsWith(prefix, StringComparison.Ordinal);
                    break;
                }
            }

            var expected = things.Where(filter).Select(t => t.Id).ToList();
            var page = await host.QueryAsync($"from index '{Definition.Name}' where {where}");
            AssertSame(expected, QueryHost.Ids(page), $"where {where} (seed {seed})");
            Assert.Equal(expected.Count, page.Total);
        }
    }

    [Theory]
    [InlineData("N", "N < 50", false)]
    [InlineData("K", "N < 50", true)]
    public async Task A_walk_that_meets_mostly_non_matches_gives_up_for_a_top_k_pass_in_the_same_order(string field, string where, bool keyword)
    {
        // 6,000 entries the walk meets first (high N, K 'b') and 400 matches after them (low N, K 'a'): the walk spends
        // its budget (1,024 + 8 per match, + a quarter of the index for keywords) and the rest is a top-k pass.
        var things = Enumerable.Range(0, 6400).Select(i =>
        {
            var match = i % 16 == 0;
            var n = match ? i % 40 : 100 + (i % 50);
            var k = match ? "a" : "b";
            return (Id: $"things/{i}", Number: i, N: (double)n, K: k);
        }).ToList();
        await using var host = await QueryHost.OpenAsync(Definition);
        await host.PutAsync("Things", things.Select(t => (t.Id, QueryHost.Json(new Dictionary<string, object> { ["N"] = t.N, ["K"] = t.K }))));
        await host.CatchUpAsync(Definition.Name);

        var expected = things.Where(t => t.N < 50)
            .OrderBy(t => keyword ? 0 : -t.N).ThenBy(t => t.Number).Select(t => t.Id).ToList();
        var text = $"from index '{Definition.Name}' where {where} order by {field} desc";
        var page = await host.QueryAsync(text + " limit 1");
        var all = QueryHost.Ids(page);
        for (var token = page.Continuation; token != null;)
        {
            var next = await host.QueryAsync(text + " limit 150", continuation: token);
            all.AddRange(QueryHost.Ids(next));
            token = next.Continuation;
        }

        AssertSame(expected, all, text);
    }

    private static (double, double) Ordered(double a, double b) => a <= b ? (a, b) : (b, a);

    private static (int, int) Ordered(int a, int b) => a <= b ? (a, b) : (b, a);

    private static void AssertSame(IEnumerable<string> expected, List<string> actual, string context)
    {
        var e = expected.ToList();
        Assert.True(e.SequenceEqual(actual), $"{context}: expected {e.Count} [{string.Join(",", e.Take(40))}] got {actual.Count} [{string.Join(",", actual.Take(40))}]");
    }

    /// <summary>Filters from dense (the walk) to sparse (a top-k pass), some far from the walk's start (the walk gives up).</summary>
    private static (string Where, Func<Thing, bool> Filter) RandomFilter(Random random)
    {
        var x = Math.Round((random.NextDouble() * 200) - 100, 1);
        var word = Words[random.Next(Words.Length)].ToLowerInvariant();
        return random.Next(8) switch
        {
            0 or 1 => ("", _ => true),
            2 => ($"where not K = '{word}'", t => t.K != word),
            3 => (string.Create(CultureInfo.InvariantCulture, $"where N > {x}"), t => t.N > x),
            4 => (string.Create(CultureInfo.InvariantCulture, $"where N < {x}"), t => t.N < x),
            5 => ($"where K = '{word}'", t => t.K == word),
            6 => ($"where startsWith(K, 'b')", t => t.K?.StartsWith('b') == true),
            _ => ($"where Tags = '{word}'", t => t.Tags.Contains(word)),
        };
    }

    /// <summary>The semantics' order: the key (missing last in both directions), ties by insertion (entry) order.</summary>
    private static List<string> Sorted(IEnumerable<Thing> things, string field, bool descending) =>
        things.Order(Comparer<Thing>.Create((a, b) =>
        {
            var (x, y) = (a.Key(field), b.Key(field));
            if (x == null || y == null)
            {
                return x == null && y == null ? a.Number.CompareTo(b.Number) : x == null ? 1 : -1;
            }

            var c = x is double dx ? dx.CompareTo((double)y) : x is long lx ? lx.CompareTo((long)y) : ((byte[])x).AsSpan().SequenceCompareTo((byte[])y);
            return c != 0 ? (descending ? -c : c) : a.Number.CompareTo(b.Number);
        })).Select(t => t.Id).ToList();

    private static Thing RandomThing(Random random, int number, int decimals = 0)
    {
        var fields = new Dictionary<string, object?>();
        double? n = null;
        switch (random.Next(8))
        {
            case 0:
                break; // missing
            case 1:
                fields["N"] = "12"; // wrong type: no value
                break;
            default:
                // Few distinct values, so ties are common.
                n = random.Next(3) == 0 ? random.Next(-3, 3) : Math.Round((random.NextDouble() * 200) - 100, decimals);
                fields["N"] = n;
                break;
        }

        var prices = random.Next(5) == 0 ? [] : Enumerable.Range(0, random.Next(0, 4)).Select(_ => Math.Round((random.NextDouble() * 200) - 100, 0)).ToArray();
        if (prices.Length > 0 || random.Next(2) == 0)
        {
            fields["Prices"] = prices;
        }

        string? k = null;
        if (random.Next(6) != 0)
        {
            var word = Words[random.Next(Words.Length)];
            fields["K"] = word;
            k = word.ToLowerInvariant();
        }

        string[] tags = [];
        if (random.Next(4) != 0)
        {
            var raw = Enumerable.Range(0, random.Next(0, 4)).Select(_ => Words[random.Next(Words.Length)]).ToArray();
            fields["Tags"] = raw;
            tags = raw.Select(t => t.ToLowerInvariant()).ToArray();
        }

        int? at = null;
        if (random.Next(4) != 0)
        {
            // Mostly rising with the insertion order (runs that follow each other), sometimes anywhere.
            at = random.Next(4) == 0 ? random.Next(0, 5000) : number + random.Next(0, 3);
            fields["At"] = Epoch.AddMinutes(at.Value).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);
        }

        var id = $"things/{(char)('a' + random.Next(26))}{number}";
        return new Thing(id, number, QueryHost.Json(fields), n, prices, k, tags, at);
    }

    private sealed record Thing(string Id, int Number, string Json, double? N, double[] Prices, string? K, string[] Tags, int? AtMinutes)
    {
        /// <summary>The sort key the semantics give: the number, the first price, the keyword, the smallest tag, the minutes.</summary>
        public object? Key(string field) => field switch
        {
            "N" => N,
            "Prices" => Prices.Length > 0 ? Prices[0] : null,
            "K" => K == null ? null : Encoding.UTF8.GetBytes(K),
            "Tags" => Tags.Length > 0 ? Tags.Select(Encoding.UTF8.GetBytes).Order(Comparer<byte[]>.Create((x, y) => x.AsSpan().SequenceCompareTo(y))).First() : null,
            _ => AtMinutes is { } m ? (long)m : null,
        };
    }
}
