using Ingest.Documents;
using Ingest.Indexing.CrashWorker;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Tests.Model;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary>
/// Random puts, updates, deletes and collection moves of documents across two collections, written to a real
/// document store and indexed by the manager's background loop, with reopens of store and manager, resets and
/// definition changes (side-by-side rebuilds); each time the index caught up, every query equals a brute-force
/// evaluation over the documents of the indexed collections, the index's own counters match, and (definition B is a
/// map-reduce index) its groups equal a brute-force group-by of those documents.
/// </summary>
public sealed class IndexSetModelTests(ITestOutputHelper output)
{
    private static readonly IndexDefinition DefinitionA = BruteForceIndex.Definition;

    // Another collection set and fewer fields: a changed definition rebuilds and swaps.
    private static readonly IndexDefinition DefinitionB = CrashIndexes.B with { Name = DefinitionA.Name };

    private static readonly string[] Collections = ["Orders", "Orders", "Archive", "ORDERS"];

    [Fact]
    public void Every_query_equals_a_brute_force_evaluation_through_the_manager() => TestSeed.Run(seed =>
        RunAsync(seed).GetAwaiter().GetResult());

    private static bool IsIndexed(IndexDefinition definition, string collection) =>
        definition.Collections.Any(c => string.Equals(c, collection, StringComparison.OrdinalIgnoreCase));

    private async Task RunAsync(int seed)
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var random = new Random(seed);
        var model = new Dictionary<string, (string Collection, byte[] Json)>(StringComparer.Ordinal);
        var universes = new Dictionary<IndexDefinition, HashSet<(int Field, string Hex)>>();
        var expected = DefinitionA;
        await using var host = await IndexedStore.OpenAsync();
        Assert.Equal(IndexPutOutcome.Created, await host.Indexes.PutAsync(expected));
        Assert.Equal(IndexPutOutcome.Unchanged, await host.Indexes.PutAsync(expected));
        int reopens = 0, resets = 0, changes = 0, verifications = 0;
        var steps = 2_000 * TestSeed.Scale;
        for (var step = 0; step < steps;)
        {
            var action = random.Next(100);
            if (action < 3)
            {
                await host.ReopenAsync();
                reopens++;
            }
            else if (action < 5)
            {
                Assert.True(await host.Indexes.ResetAsync(expected.Name));
                resets++;
            }
            else if (action < 7)
            {
                expected = expected == DefinitionA ? DefinitionB : DefinitionA;
                Assert.Equal(IndexPutOutcome.Rebuilding, await host.Indexes.PutAsync(expected));
                changes++;
            }
            else
            {
                var batch = new WriteBatch();
                for (var n = random.Next(1, 26); n > 0 && step < steps; n--, step++)
                {
                    var id = $"orders/{random.Next(150)}";
                    if (random.Next(5) == 0)
                    {
                        batch.Delete(id);
                        model.Remove(id);
                    }
                    else
                    {
                        var collection = Collections[random.Next(Collections.Length)];
                        var json = BruteForceIndex.RandomDocument(random);
                        if (json.Length > 0 && json[^1] != '}')
                        {
                            continue; // the store refuses malformed JSON
                        }

                        // A document keeps its collection's first casing in the store's counters; ids keep theirs.
                        batch.Put(id, collection, json);
                        model[id] = (collection, json);
                    }
                }

                await host.Store.WriteAsync(batch);
            }

            if (action < 7 || random.Next(10) == 0)
            {
                await VerifyAsync(host, expected, model, universes, random);
                verifications++;
            }
        }

        await VerifyAsync(host, expected, model, universes, random);
        output.WriteLine($"{steps} changes, {model.Count} documents, {reopens} reopens, {resets} resets, {changes} definition changes, {verifications} verifications");
    }

    private static async Task VerifyAsync(IndexedStore host, IndexDefinition expected, Dictionary<string, (string Collection, byte[] Json)> model, Dictionary<IndexDefinition, HashSet<(int Field, string Hex)>> universes, Random random)
    {
        await host.CatchUpAsync(expected.Name);
        var status = host.Indexes.GetStatus(expected.Name)!;
        Assert.Equal(expected, status.Definition);
        Assert.Equal(IndexState.Indexing, status.State);
        Assert.Null(status.Error);
        Assert.False(status.IsStale);
        Assert.Equal(host.Store.LastEtag, status.LastIndexedEtag);
        var indexed = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var (id, (collection, json)) in model)
        {
            if (IsIndexed(expected, collection))
            {
                indexed[id] = json;
            }
        }

        if (!universes.TryGetValue(expected, out var universe))
        {
            universes[expected] = universe = [];
        }

        using var reader = host.Indexes.BeginRead(expected.Name)!;
        Assert.Equal(host.Store.LastEtag, reader.LastIndexedEtag);
        var nulls = BruteForceIndex.Verify(reader, expected, indexed, universe, random);
        Assert.Equal(indexed.Count, status.EntryCount);
        for (var f = 0; f < nulls.Length; f++)
        {
            Assert.Equal(nulls[f], status.Fields[f].NullCount);
        }

        if (expected.Reduce != null)
        {
            Assert.Equal(BruteForceGroups.Expected(expected, indexed), BruteForceGroups.Actual(reader));
        }
    }
}
