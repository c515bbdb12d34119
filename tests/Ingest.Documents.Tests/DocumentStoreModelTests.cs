using System.Globalization;
using System.Text;
using Xunit.Abstractions;

namespace Ingest.Documents.Tests;

/// <summary>Random batches of puts, deletes and source positions, checked against an in-memory model, with reopens.</summary>
public sealed class DocumentStoreModelTests(ITestOutputHelper output)
{
    private static readonly string[] Stems = ["orders/", "Users/", "straße/", "ΟΔΟΣ/", "москва/", "emoji/🍕", "Ⱥ/", "x"];
    private static readonly string[] Collections = ["Orders", "orders", "Users", "Σύνολο", "Misc"];

    private sealed record ModelDocument(string Id, string Collection, string Body, bool Deleted);

    private sealed class Model
    {
        public Dictionary<string, long> Live { get; } = new(StringComparer.Ordinal);

        public SortedDictionary<long, ModelDocument> Changes { get; } = [];

        public Dictionary<(string, int), long> Positions { get; } = [];

        public long LastEtag { get; set; }

        /// <summary>An independent statement of the folding rule: invariant upper then lower, per char.</summary>
        public static string Key(string id) => id.ToUpperInvariant().ToLowerInvariant();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Random_batches_match_the_model_across_reopens(bool compression) => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var steps = 1500 * TestSeed.Scale;
        using var dir = new TestDirectory();
        var model = new Model();

        // With compression, dictionaries train after 20 puts of a collection and retrain as bodies change.
        var options = TestDirectory.Options();
        options.Compression = compression;
        options.DictionaryTrainingDocuments = 20;
        options.DictionaryRetrainRatio = 1.05;
        var store = DocumentStore.Open(dir.Path, options);
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var roll = rnd.Next(100);
                if (roll < 3)
                {
                    store.Dispose();
                    store = DocumentStore.Open(dir.Path, options);
                }
                else if (roll < 5)
                {
                    var purged = store.PurgeTombstonesAsync().GetAwaiter().GetResult();
                    var tombstones = model.Changes.Where(c => c.Value.Deleted).Select(c => c.Key).ToList();
                    Assert.Equal(tombstones.Count, purged);
                    tombstones.ForEach(e => model.Changes.Remove(e));
                }
                else if (roll < 10)
                {
                    WriteInvalidBatch(store, rnd);
                }
                else
                {
                    WriteBatch(store, model, rnd);
                }

                CheckGets(store, model, rnd);
                if (step % 25 == 0 || step == steps - 1)
                {
                    CheckEverything(store, model, rnd);
                }
            }

            output.WriteLine($"seed {seed}: {steps} steps, last etag {model.LastEtag}, {model.Live.Count} live documents");
        }
        finally
        {
            store.Dispose();
        }
    });

    private static string RandomCasing(string s, Random rnd)
    {
        var builder = new StringBuilder(s.Length);
        foreach (var rune in s.EnumerateRunes())
        {
            builder.Append((rnd.Next(3) switch
            {
                0 => Rune.ToUpperInvariant(rune),
                1 => Rune.ToLowerInvariant(rune),
                _ => rune,
            }).ToString());
        }

        // The Greek final sigma is the lower case of Σ at the end of a word: use it sometimes.
        return rnd.Next(4) == 0 ? builder.ToString().Replace('σ', 'ς') : builder.ToString();
    }

    /// <summary>Words of a vocabulary that drifts with the step, so dictionaries age and get retrained.</summary>
    private static string RandomText(Random rnd, int length)
    {
        var builder = new StringBuilder(length + 16);
        while (builder.Length < length)
        {
            builder.Append(Stems[rnd.Next(Stems.Length)]).Append(rnd.Next(1000)).Append(' ');
        }

        return builder.ToString();
    }

    private static string RandomId(Random rnd) =>
        RandomCasing(Stems[rnd.Next(Stems.Length)] + rnd.Next(60).ToString(CultureInfo.InvariantCulture), rnd);

    private static void WriteBatch(DocumentStore store, Model model, Random rnd)
    {
        var batch = new WriteBatch();
        var pending = new List<Action>();
        var n = rnd.Next(1, 25);
        for (var i = 0; i < n; i++)
        {
            var id = RandomId(rnd);
            var kind = rnd.Next(10);
            if (kind < 6)
            {
                var collection = Collections[rnd.Next(Collections.Length)];
                var body = rnd.Next(3) == 0
                    ? $"{{\"v\":{rnd.Next()},\"pad\":\"{new string('p', rnd.Next(rnd.Next(20) == 0 ? 5000 : 200))}\"}}"
                    : $"{{\"v\":{rnd.Next()},\"text\":\"{RandomText(rnd, rnd.Next(rnd.Next(20) == 0 ? 3000 : 300))}\"}}";
                batch.Put(id, collection, body);
                pending.Add(() =>
                {
                    var key = Model.Key(id);
                    if (model.Live.Remove(key, out var old))
                    {
                        model.Changes.Remove(old);
                    }

                    var etag = ++model.LastEtag;
                    model.Live[key] = etag;
                    model.Changes[etag] = new ModelDocument(id, collection, body, false);
                });
            }
            else if (kind < 9)
            {
                batch.Delete(id);
                pending.Add(() =>
                {
                    if (model.Live.Remove(Model.Key(id), out var old))
                    {
                        var doc = model.Changes[old];
                        model.Changes.Remove(old);
                        model.Changes[++model.LastEtag] = doc with { Body = string.Empty, Deleted = true };
                    }
                });
            }
            else
            {
                var partition = rnd.Next(4);
                var offset = rnd.NextInt64(1_000_000);
                batch.SetSourcePosition("kafka:model", partition, offset);
                pending.Add(() => model.Positions[("kafka:model", partition)] = offset);
            }
        }

        var result = store.Write(batch);
        var before = model.LastEtag;
        pending.ForEach(a => a());
        Assert.Equal(model.LastEtag, store.LastEtag);
        if (model.LastEtag > before)
        {
            Assert.Equal(model.LastEtag, result.LastEtag);
        }
    }

    private static void WriteInvalidBatch(DocumentStore store, Random rnd)
    {
        var lastEtag = store.LastEtag;
        var batch = new WriteBatch().Put(RandomId(rnd), "Orders", "{\"ok\":true}").Delete(RandomId(rnd));
        switch (rnd.Next(3))
        {
            case 0:
                batch.Put(RandomId(rnd), "Orders", "{\"broken\":");
                break;
            case 1:
                batch.Put(string.Empty, "Orders", "{}");
                break;
            default:
                batch.Delete(new string('x', 600));
                break;
        }

        Assert.Throws<InvalidDocumentException>(() => store.Write(batch));
        Assert.Equal(lastEtag, store.LastEtag);
    }

    private static void CheckGets(DocumentStore store, Model model, Random rnd)
    {
        using var reader = store.BeginRead();
        for (var i = 0; i < 10; i++)
        {
            var id = RandomId(rnd);
            var found = reader.TryGet(id, out var view);
            if (model.Live.TryGetValue(Model.Key(id), out var etag))
            {
                Assert.True(found, $"'{id}' should exist at etag {etag}");
                var expected = model.Changes[etag];
                Assert.Equal(etag, view.Etag);
                Assert.Equal(expected.Id, view.Id);
                Assert.Equal(expected.Collection, view.Collection);
                Assert.Equal(expected.Body, Encoding.UTF8.GetString(view.Body));
            }
            else
            {
                Assert.False(found, $"'{id}' should not exist");
            }
        }
    }

    private static void CheckEverything(DocumentStore store, Model model, Random rnd)
    {
        using var reader = store.BeginRead();

        // The whole changes feed, then from a random etag.
        var expected = model.Changes.ToList();
        var i = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            Assert.True(i < expected.Count, "more changes than the model has");
            var (etag, doc) = expected[i++];
            Assert.Equal(etag, change.Etag);
            Assert.Equal(doc.Id, change.Id);
            Assert.Equal(doc.Collection, change.Collection);
            Assert.Equal(doc.Deleted, change.IsDeleted);
            Assert.Equal(doc.Body, Encoding.UTF8.GetString(change.Body));
        }

        Assert.Equal(expected.Count, i);
        var from = model.LastEtag == 0 ? 0 : rnd.NextInt64(model.LastEtag + 1);
        var count = 0;
        foreach (var change in reader.GetChangesSince(from))
        {
            Assert.True(change.Etag > from);
            count++;
        }

        Assert.Equal(expected.Count(e => e.Key > from), count);

        // Collections (case-insensitive names).
        foreach (var name in Collections.Select(Model.Key).Distinct())
        {
            var inCollection = expected.Where(e => !e.Value.Deleted && Model.Key(e.Value.Collection) == name).Select(e => e.Key).ToList();
            var actual = new List<long>();
            foreach (var doc in reader.GetCollection(name.ToUpperInvariant()))
            {
                actual.Add(doc.Etag);
            }

            Assert.Equal(inCollection, actual);
        }

        // Counters and positions.
        var stats = reader.GetStats();
        Assert.Equal(model.Live.Count, stats.DocumentCount);
        Assert.Equal(expected.Count(e => e.Value.Deleted), stats.TombstoneCount);
        Assert.Equal(expected.Where(e => !e.Value.Deleted).Sum(e => (long)Encoding.UTF8.GetByteCount(e.Value.Body)), stats.DocumentBytes);
        Assert.Equal(model.LastEtag, stats.LastEtag);
        foreach (var c in stats.Collections)
        {
            Assert.Equal(expected.Count(e => !e.Value.Deleted && Model.Key(e.Value.Collection) == Model.Key(c.Name)), c.Count);

            // The stored-bytes counter is kept in the write transaction: it must equal a scan.
            long stored = 0;
            foreach (var doc in reader.GetCollection(c.Name))
            {
                stored += doc.StoredBody.Length;
            }

            Assert.Equal(stored, c.StoredBodyBytes);
        }

        var verified = reader.VerifyDocuments();
        Assert.Empty(verified.Problems);
        Assert.Equal(model.Live.Count, verified.DocumentsChecked);

        foreach (var ((source, partition), offset) in model.Positions)
        {
            Assert.Equal(offset, reader.GetSourcePosition(source, partition)!.Value.Position.NextOffset);
        }

        Assert.Equal(model.Positions.Count, reader.GetSourcePositions("kafka:model").Count);
    }
}
