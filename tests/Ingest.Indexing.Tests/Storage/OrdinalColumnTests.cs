using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;

namespace Ingest.Indexing.Tests.Storage;

/// <summary>
/// The keyword ordinal columns (format 2) against the documents they came from: after random batches of puts (often
/// with terms the index never saw), updates, deletes, re-puts and reopens, every entry's column value, set and term
/// names give exactly the distinct terms its document holds in each keyword field.
/// </summary>
public sealed class OrdinalColumnTests : IDisposable
{
    private static readonly IndexDefinition Definition = new(
        "Orders/Ordinals",
        ["Orders"],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword, ExactCase: true),
        ]);

    private readonly TestDirectory _directory = new();

    [Fact]
    public void Ordinal_columns_hold_each_entrys_distinct_keyword_terms_through_updates_deletes_and_reopens()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        var index = IndexStorage.Open(_directory.Path, Definition);
        var documents = new Dictionary<string, (string? Status, string[] Tags)>();
        long etag = 0;
        try
        {
            for (var round = 0; round < 40; round++)
            {
                var words = new[] { "a", "B", "m", $"new{round}", $"0{round}", $"zz{random.Next(1000)}", "Ünï" };
                using var batch = index.CreateBatch();
                for (var i = 0; i < 60; i++)
                {
                    var id = $"orders/{random.Next(150)}";
                    if (random.Next(6) == 0)
                    {
                        batch.Delete(id, ++etag);
                        documents.Remove(id);
                        continue;
                    }

                    var status = random.Next(5) == 0 ? null : words[random.Next(words.Length)];
                    var tags = Enumerable.Range(0, random.Next(4)).Select(_ => words[random.Next(words.Length)]).ToArray();
                    var json = "{" + (status == null ? "" : $"\"Status\":\"{status}\",") + "\"Total\":1,\"Tags\":[" + string.Join(",", tags.Select(t => $"\"{t}\"")) + "]}";
                    batch.Put(id, ++etag, Encoding.UTF8.GetBytes(json));
                    documents[id] = (status?.ToLowerInvariant(), tags);
                }

                index.Apply(batch);
                if (random.Next(5) == 0)
                {
                    index.Dispose();
                    index = IndexStorage.Open(_directory.Path, Definition);
                }

                Check(index, documents, $"seed {seed} (INGEST_TEST_SEED), round {round}");
            }
        }
        finally
        {
            index.Dispose();
        }
    }

    private static void Check(IndexStorage index, Dictionary<string, (string? Status, string[] Tags)> documents, string context)
    {
        using var reader = index.BeginRead();
        Assert.True(reader.HasOrdinals, context);
        var entries = new List<(long Entry, string Id)>();
        foreach (var id in documents.Keys)
        {
            Assert.True(reader.TryGetEntry(id, out var entry), context);
            entries.Add((entry, id));
        }

        entries.Sort();
        var ids = entries.Select(e => e.Entry).ToArray();
        foreach (var (field, expectedOf) in new (int, Func<string, string[]>)[]
        {
            (0, id => documents[id].Status is { } s ? [s] : []),
            (2, id => documents[id].Tags),
        })
        {
            var values = new ulong[ids.Length];
            reader.ReadOrdinals(field, ids, values);
            for (var i = 0; i < ids.Length; i++)
            {
                var expected = expectedOf(entries[i].Id).Distinct().Order(StringComparer.Ordinal).ToArray();
                var count = (int)(values[i] >> 32);
                var numbers = new uint[Math.Max(1, count)];
                if (count > 1)
                {
                    Assert.Equal(count, reader.ReadOrdinalSet(field, ids[i], numbers));
                    Assert.Equal((uint)values[i], numbers[0]);
                }
                else
                {
                    numbers[0] = (uint)values[i];
                    Assert.Equal(0, reader.ReadOrdinalSet(field, ids[i], numbers));
                }

                var actual = numbers.Take(count).Select(n =>
                {
                    Assert.True(n > 0 && n < reader.OrdinalLimit(field), context);
                    Assert.True(reader.TryReadOrdinalTerm(field, n, out var term), context);
                    return Encoding.UTF8.GetString(term);
                }).Order(StringComparer.Ordinal).ToArray();
                Assert.True(expected.SequenceEqual(actual), $"{context}: {entries[i].Id} field {field} expected [{string.Join(",", expected)}], column [{string.Join(",", actual)}]");
            }
        }
    }

    public void Dispose() => _directory.Dispose();
}
