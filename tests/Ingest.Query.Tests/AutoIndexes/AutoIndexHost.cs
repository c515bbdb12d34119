using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Query.Tests.AutoIndexes;

/// <summary>A real document store, index set and index chooser on a temporary directory; reopened at will.</summary>
internal sealed class AutoIndexHost : IAsyncDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), $"ingest-auto-index-test-{Guid.NewGuid():N}");

    private AutoIndexHost(AutoIndexOptions options, SettableTime time)
    {
        Options = options;
        Time = time;
    }

    public AutoIndexOptions Options { get; }

    public SettableTime Time { get; }

    public DocumentStore Store { get; private set; } = null!;

    public IndexSet Indexes { get; private set; } = null!;

    public IndexChooser Chooser { get; private set; } = null!;

    public static async Task<AutoIndexHost> OpenAsync(AutoIndexOptions? options = null)
    {
        var host = new AutoIndexHost(options ?? new AutoIndexOptions(), new SettableTime());
        await host.StartAsync();
        return host;
    }

    public async Task ReopenAsync()
    {
        await StopAsync();
        await StartAsync();
    }

    public async Task PutAsync(params (string Id, string Json)[] documents)
    {
        var batch = new WriteBatch();
        foreach (var (id, json) in documents)
        {
            batch.Put(id, "Orders", json);
        }

        await Store.WriteAsync(batch);
    }

    public async Task CatchUpAsync(string name) =>
        Assert.True(await Indexes.WaitForIndexedEtagAsync(name, Store.LastEtag, TimeSpan.FromSeconds(60)), $"index '{name}' did not reach etag {Store.LastEtag}: {Indexes.GetStatus(name)}");

    public IReadOnlyList<string> IndexNames() => [.. Indexes.GetStatuses().Select(s => s.Definition.Name)];

    public async ValueTask DisposeAsync()
    {
        try
        {
            await StopAsync();
        }
        finally
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private async Task StartAsync()
    {
        Store = DocumentStore.Open(Path.Combine(_root, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        Indexes = await IndexSet.OpenAsync(Store, Path.Combine(_root, "indexes"), new IndexingOptions(), NullLoggerFactory.Instance);
        Chooser = IndexChooser.Open(Indexes, Store, Path.Combine(_root, "queries"), Options, Time, NullLogger<IndexChooser>.Instance);
    }

    private async Task StopAsync()
    {
        await Chooser.DisposeAsync();
        await Indexes.DisposeAsync();
        Store.Dispose();
    }
}
