using Ingest.Documents;
using Ingest.Indexing.CrashWorker;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Tests.Model;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary>
/// A child process indexing a large backlog with the manager (sometimes under a changed definition, so a side-by-side
/// rebuild and its swap are under way) is killed with SIGKILL at random moments; between runs the test changes
/// documents. After the final catch-up the index equals the brute-force evaluation of the documents (and, when the last
/// definition is the map-reduce one, its groups a brute-force group-by of them).
/// </summary>
public sealed class IndexCrashTests(ITestOutputHelper output)
{
    private const int Kills = 12;
    private const int Backlog = 20_000;
    private static readonly string[] Collections = ["Orders", "Orders", "Archive", "ORDERS"];

    [Fact]
    public void An_index_killed_at_random_moments_resumes_and_equals_the_brute_force_model() => TestSeed.Run(seed =>
        RunAsync(seed).GetAwaiter().GetResult());

    private static void WriteChanges(DocumentStore store, Random random, Dictionary<string, (string Collection, byte[] Json)> model, int changes)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < changes; i++)
        {
            var id = $"orders/{random.Next(Backlog / 2)}";
            if (random.Next(7) == 0)
            {
                batch.Delete(id);
                model.Remove(id);
                continue;
            }

            var json = BruteForceIndex.RandomDocument(random);
            if (json[^1] != '}')
            {
                continue; // the store refuses malformed JSON
            }

            var collection = Collections[random.Next(Collections.Length)];
            batch.Put(id, collection, json);
            model[id] = (collection, json);
            if (batch.Count == 5_000)
            {
                store.Write(batch);
                batch = new WriteBatch();
            }
        }

        store.Write(batch);
    }

    private async Task RunAsync(int seed)
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var worker = CrashWorkerProcess.PathOf("Ingest.Indexing.Tests", "Ingest.Indexing.CrashWorker");
        var random = new Random(seed);
        using var directory = new TestDirectory();
        var root = directory.Path;
        var model = new Dictionary<string, (string Collection, byte[] Json)>(StringComparer.Ordinal);
        using (var store = IndexedStore.OpenStore(root))
        {
            WriteChanges(store, random, model, Backlog);
        }

        var definition = CrashIndexes.A;
        for (var kill = 0; kill < Kills; kill++)
        {
            var workerSeed = random.Next();
            definition = CrashIndexes.For(workerSeed);
            long lastEtag = 0;
            CrashWorkerProcess.RunAndKill(worker, root, workerSeed, TimeSpan.FromMilliseconds(random.Next(100, 1500)), line =>
            {
                if (line.StartsWith("etag ", StringComparison.Ordinal))
                {
                    lastEtag = long.Parse(line.AsSpan(5), System.Globalization.CultureInfo.InvariantCulture);
                }

                return line == "open" || line.StartsWith("etag ", StringComparison.Ordinal);
            });
            output.WriteLine($"kill {kill}: definition {(definition == CrashIndexes.A ? "A" : "B")}, reported etag {lastEtag}");
            using var store = IndexedStore.OpenStore(root);
            WriteChanges(store, random, model, random.Next(1, 500));
        }

        await using var host = await IndexedStore.OpenAsync(CrashIndexes.Options, root);
        await host.Indexes.PutAsync(definition);
        await host.CatchUpAsync(CrashIndexes.Name);
        Verify(host, definition, model, random);
        if (definition.Reduce == null)
        {
            // Every run ends with the map-reduce definition checked: a rebuild into it from what the kills left.
            definition = CrashIndexes.B;
            await host.Indexes.PutAsync(definition);
            await host.CatchUpAsync(CrashIndexes.Name);
            Verify(host, definition, model, random);
        }

        // Nothing left behind: one build directory, and the consumer of the one index.
        Assert.Single(Directory.GetDirectories(host.IndexesDirectory));
        Assert.Equal(["index/" + CrashIndexes.Name], host.Store.GetConsumers().Select(c => c.Name));
    }

    private static void Verify(IndexedStore host, IndexDefinition definition, Dictionary<string, (string Collection, byte[] Json)> model, Random random)
    {
        var status = host.Indexes.GetStatus(CrashIndexes.Name)!;
        Assert.Equal(definition, status.Definition);
        Assert.Equal(IndexState.Indexing, status.State);
        var indexed = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var (id, (collection, json)) in model)
        {
            if (definition.Collections.Any(c => string.Equals(c, collection, StringComparison.OrdinalIgnoreCase)))
            {
                indexed[id] = json;
            }
        }

        using var reader = host.Indexes.BeginRead(CrashIndexes.Name)!;
        var nulls = BruteForceIndex.Verify(reader, definition, indexed, [], random);
        Assert.Equal(indexed.Count, status.EntryCount);
        if (definition.Reduce != null)
        {
            Assert.Equal(BruteForceGroups.Expected(definition, indexed), BruteForceGroups.Actual(reader));
        }

        for (var f = 0; f < nulls.Length; f++)
        {
            Assert.Equal(nulls[f], status.Fields[f].NullCount);
        }
    }
}
