using System.Buffers;
using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>
/// A real document store and index manager with one index over "Orders", on a temporary directory deleted on
/// dispose; runs aggregation queries over the entries of chosen documents (the where clause is the executor's).
/// </summary>
internal sealed class AggregationHost : IAsyncDisposable
{
    public static readonly IndexDefinition Orders = new(
        "Orders/ForAggregation",
        ["Orders"],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Scores", "Scores[]", IndexFieldType.Number),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
        ]);

    private readonly string _root;
    private readonly List<string> _ids = [];

    private AggregationHost(string root, DocumentStore store, IndexManager manager)
    {
        _root = root;
        Store = store;
        Manager = manager;
    }

    public DocumentStore Store { get; }

    public IndexManager Manager { get; }

    /// <summary>Ids of the documents written, in order.</summary>
    public IReadOnlyList<string> Ids => _ids;

    public static async Task<AggregationHost> OpenAsync()
    {
        var root = Path.Combine(Path.GetTempPath(), $"ingest-aggregation-test-{Guid.NewGuid():N}");
        var store = DocumentStore.Open(Path.Combine(root, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        var manager = await IndexManager.OpenAsync(store, Path.Combine(root, "indexes"), new IndexingOptions(), NullLoggerFactory.Instance);
        await manager.PutAsync(Orders);
        return new AggregationHost(root, store, manager);
    }

    /// <summary>Writes the documents (ids orders/0, orders/1, ...) and waits until the index has them.</summary>
    public async Task WriteAsync(params string[] documents)
    {
        var batch = new WriteBatch();
        foreach (var json in documents)
        {
            var id = $"orders/{_ids.Count}";
            _ids.Add(id);
            batch.Put(id, "Orders", json);
            if (batch.Count == 10_000)
            {
                await Store.WriteAsync(batch);
                batch = new WriteBatch();
            }
        }

        if (batch.Count > 0)
        {
            await Store.WriteAsync(batch);
        }

        Assert.True(await Manager.WaitForIndexedEtagAsync(Orders.Name, Store.LastEtag, TimeSpan.FromSeconds(60)), "the index did not catch up");
    }

    /// <summary>Runs the aggregation of <paramref name="query"/> over every document, or over those listed (indexes into <see cref="Ids"/>).</summary>
    public JsonArray Run(string query, IReadOnlyCollection<int>? documents = null, string parameters = "{}")
    {
        var aggregation = Bind(query, parameters);
        using var reader = Manager.BeginRead(Orders.Name)!;
        var matches = new List<long>();
        for (var i = 0; i < _ids.Count; i++)
        {
            if ((documents == null || documents.Contains(i)) && reader.TryGetEntry(_ids[i], out var entry))
            {
                matches.Add(entry);
            }
        }

        matches.Sort();
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            var total = aggregation.Write(reader, matches.ToArray(), writer, CancellationToken.None);
            writer.WriteEndArray();
            Assert.True(total >= 0);
        }

        return JsonNode.Parse(buffer.WrittenSpan)!.AsArray();
    }

    public static AggregationQuery Bind(string query, string parameters = "{}")
    {
        var values = JsonDocument.Parse(parameters).RootElement;
        return AggregationQuery.TryBind(
            QueryParser.Parse(query),
            Orders,
            p => values.TryGetProperty(p.Name, out var v) ? v.Clone() : throw new QueryException(p.Position, $"missing parameter '${p.Name}'"))
            ?? throw new InvalidOperationException("not an aggregation");
    }

    public async ValueTask DisposeAsync()
    {
        await Manager.DisposeAsync();
        Store.Dispose();
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }
}
