using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Tests.Model;
using Ingest.Storage;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Storage;

/// <summary>
/// Random puts, updates and deletes, in random-size batches through the real extractor and <see cref="IndexStorage"/>,
/// with reopens; after every batch each term lookup, range, prefix, null and exists query, numeric column and id
/// mapping equals a brute-force evaluation over the model's documents.
/// </summary>
public sealed class IndexStorageModelTests(ITestOutputHelper output) : IDisposable
{
    private static readonly IndexDefinition Definition = BruteForceIndex.Definition;

    private readonly TestDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Theory]
    [InlineData(2)]
    [InlineData(IndexStorage.DefaultInlineLimit)]
    public void Every_query_equals_a_brute_force_evaluation_of_the_documents(int inlineLimit) => TestSeed.Run(seed =>
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed}), inline limit {inlineLimit}");
        var random = new Random(seed);
        var options = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe };
        var model = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        var universe = new HashSet<(int Field, string Hex)>();
        var index = IndexStorage.Open(_directory.Path, Definition, options, inlineLimit);
        var batch = index.CreateBatch();
        try
        {
            long etag = 0;
            var steps = 2_500 * TestSeed.Scale;
            var reopens = 0;
            for (var step = 0; step < steps;)
            {
                var size = random.Next(4) == 0 ? random.Next(1, 200) : random.Next(1, 20);
                for (var i = 0; i < size && step < steps; i++, step++)
                {
                    var id = $"orders/{random.Next(120)}";
                    if (random.Next(5) == 0)
                    {
                        batch.Delete(id, ++etag);
                        model.Remove(id);
                    }
                    else
                    {
                        var json = BruteForceIndex.RandomDocument(random);
                        batch.Put(id, ++etag, json);
                        model[id] = json;
                    }
                }

                index.Apply(batch);
                batch.Clear();
                if (random.Next(8) == 0)
                {
                    batch.Dispose();
                    index.Dispose();
                    index = IndexStorage.Open(_directory.Path, Definition, options, inlineLimit);
                    batch = index.CreateBatch();
                    reopens++;
                    Assert.Equal(etag, index.LastIndexedEtag);
                }

                Verify(index, model, universe, random, etag);
            }

            output.WriteLine($"{steps} changes, {model.Count} documents left, {universe.Count} distinct terms, {reopens} reopens");
        }
        finally
        {
            batch.Dispose();
            index.Dispose();
        }
    });

    private static void Verify(IndexStorage index, Dictionary<string, byte[]> model, HashSet<(int Field, string Hex)> universe, Random random, long etag)
    {
        using var reader = index.BeginRead();
        Assert.Equal(etag, reader.LastIndexedEtag);
        var nulls = BruteForceIndex.Verify(reader, Definition, model, universe, random);
        for (var f = 0; f < nulls.Length; f++)
        {
            Assert.Equal(nulls[f], index.NullCount(f));
        }

        for (var i = 0; i < 120; i++)
        {
            var id = $"orders/{i}";
            Assert.Equal(model.ContainsKey(id), reader.TryGetEntry(id, out _));
        }
    }
}
