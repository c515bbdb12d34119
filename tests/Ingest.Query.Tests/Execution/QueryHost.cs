using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Storage;

namespace Ingest.Query.Tests.Execution;

/// <summary>A real document store and <see cref="QueryEngine"/> (its indexes, executor) on a temporary directory, deleted on dispose.</summary>
internal sealed class QueryHost : IAsyncDisposable
{
    private readonly string _root;

    private QueryHost(string root, DocumentStore store, QueryEngine engine)
    {
        _root = root;
        Store = store;
        Engine = engine;
    }

    public DocumentStore Store { get; }

    public QueryEngine Engine { get; }

    public IndexSet Indexes => Engine.Indexes;

    public QueryExecutor Executor => Engine.Executor;

    public static async Task<QueryHost> OpenAsync(params IndexDefinition[] definitions)
    {
        var root = Path.Combine(Path.GetTempPath(), $"ingest-query-test-{Guid.NewGuid():N}");
        var store = DocumentStore.Open(Path.Combine(root, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        var engine = new QueryEngine(store, root);
        await engine.OpenAsync();
        var host = new QueryHost(root, store, engine);
        foreach (var definition in definitions)
        {
            await engine.Indexes.PutAsync(definition);
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
        while (Indexes.GetStatus(index) is { PendingDefinition: not null })
        {
            Assert.True(DateTime.UtcNow < deadline, $"index '{index}' did not swap in its rebuild");
            await Task.Delay(5);
        }

        Assert.True(await Indexes.WaitForIndexedEtagAsync(index, Store.LastEtag, TimeSpan.FromSeconds(60)), $"index '{index}' did not catch up");
    }

    /// <summary>Parses, prepares against the query's index (or a collection scan) and runs one page.</summary>
    public async Task<Page> QueryAsync(string text, object? parameters = null, string? continuation = null)
    {
        var parsed = QueryParser.Parse(text);
        var prepared = Prepare(parsed, parameters, continuation);
        using var reader = prepared.IsCollectionScan ? null : Indexes.BeginRead(prepared.SourceName);
        using var results = Executor.Run(prepared, reader, CancellationToken.None);
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
            definition = Indexes.GetStatus(parsed.Source.Name)?.Definition;
        }

        return Executor.Prepare(parsed, definition, Parameters(parameters), continuation);
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
        await Engine.DisposeAsync();
        Store.Dispose();
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    public static string Json(object value) => Encoding.UTF8.GetString(JsonSerializer.SerializeToUtf8Bytes(value));

    public sealed record Page(List<JsonElement> Rows, long Total, string? Continuation);
}
