using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Query.Tests.Execution;

/// <summary>A real document store, index manager and query runner on a temporary directory, deleted on dispose.</summary>
internal sealed class QueryHost : IAsyncDisposable
{
    private readonly string _root;

    private QueryHost(string root, DocumentStore store, IndexManager manager)
    {
        _root = root;
        Store = store;
        Manager = manager;
        Runner = new QueryRunner(store);
    }

    public DocumentStore Store { get; }

    public IndexManager Manager { get; }

    public QueryRunner Runner { get; }

    public static async Task<QueryHost> OpenAsync(params IndexDefinition[] definitions)
    {
        var root = Path.Combine(Path.GetTempPath(), $"ingest-query-test-{Guid.NewGuid():N}");
        var store = DocumentStore.Open(Path.Combine(root, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        var manager = await IndexManager.OpenAsync(store, Path.Combine(root, "indexes"), new IndexingOptions(), NullLoggerFactory.Instance);
        var host = new QueryHost(root, store, manager);
        foreach (var definition in definitions)
        {
            await manager.PutAsync(definition);
        }

        return host;
    }

    /// <summary>Puts documents (id, JSON) into a collection in one batch.</summary>
    public async Task PutAsync(string collection, IEnumerable<(string Id, string Json)> documents)
    {
        var batch = new WriteBatch();
        foreach (var (id, json) in documents)
        {
            batch.Put(id, collection, json);
        }

        await Store.WriteAsync(batch);
    }

    public async Task CatchUpAsync(string index)
    {
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (Manager.GetStatus(index) is { PendingDefinition: not null })
        {
            Assert.True(DateTime.UtcNow < deadline, $"index '{index}' did not swap in its rebuild");
            await Task.Delay(5);
        }

        Assert.True(await Manager.WaitForIndexedEtagAsync(index, Store.LastEtag, TimeSpan.FromSeconds(60)), $"index '{index}' did not catch up");
    }

    /// <summary>Parses, prepares against the query's index (or a collection scan) and runs one page.</summary>
    public async Task<Page> QueryAsync(string text, object? parameters = null, string? continuation = null)
    {
        var parsed = QueryParser.Parse(text);
        var prepared = Prepare(parsed, parameters, continuation);
        using var reader = prepared.IsCollectionScan ? null : Manager.BeginRead(prepared.SourceName);
        using var results = Runner.Run(prepared, reader, CancellationToken.None);
        var buffer = new MemoryStream();
        await using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            await results.WriteResultsAsync(writer, async ct => await writer.FlushAsync(ct), CancellationToken.None);
            writer.WriteEndArray();
        }

        using var json = JsonDocument.Parse(buffer.ToArray());
        var rows = json.RootElement.EnumerateArray().Select(e => e.Clone()).ToList();
        return new Page(rows, results.TotalResults, results.Continuation);
    }

    public PreparedQuery Prepare(ParsedQuery parsed, object? parameters = null, string? continuation = null)
    {
        IndexDefinition? definition = null;
        if (parsed.Source.Kind == QuerySourceKind.Index)
        {
            definition = Manager.GetStatus(parsed.Source.Name)?.Definition;
        }

        return Runner.Prepare(parsed, definition, Parameters(parameters), continuation);
    }

    public static QueryParameters Parameters(object? parameters)
    {
        if (parameters == null)
        {
            return QueryParameters.None;
        }

        var json = JsonSerializer.SerializeToUtf8Bytes(parameters);
        return new QueryParameters(JsonSerializer.Deserialize<Dictionary<string, JsonElement>>(json));
    }

    /// <summary>The ids of a page of documents, in order.</summary>
    public static List<string> Ids(Page page) => page.Rows.Select(r => r.GetProperty("id").GetString()!).ToList();

    public async ValueTask DisposeAsync()
    {
        await Manager.DisposeAsync();
        Store.Dispose();
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    public static string Json(object value) => Encoding.UTF8.GetString(JsonSerializer.SerializeToUtf8Bytes(value));

    public sealed record Page(List<JsonElement> Rows, long Total, string? Continuation);
}
