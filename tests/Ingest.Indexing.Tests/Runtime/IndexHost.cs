using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary>A real document store and index set on a temporary directory, reopened at will, deleted on dispose.</summary>
internal sealed class IndexHost : IAsyncDisposable
{
    private readonly IndexingOptions _options;

    private IndexHost(string root, IndexingOptions options)
    {
        Root = root;
        _options = options;
    }

    public string Root { get; }

    public string IndexesDirectory => Path.Combine(Root, "indexes");

    public DocumentStore Store { get; private set; } = null!;

    public IndexSet Indexes { get; private set; } = null!;

    public static async Task<IndexHost> OpenAsync(IndexingOptions? options = null, string? root = null)
    {
        var host = new IndexHost(root ?? Path.Combine(Path.GetTempPath(), $"ingest-indexing-test-{Guid.NewGuid():N}"), options ?? new IndexingOptions());
        await host.StartAsync();
        return host;
    }

    public static DocumentStore OpenStore(string root) =>
        DocumentStore.Open(Path.Combine(root, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });

    public async Task ReopenAsync()
    {
        await StopAsync();
        await StartAsync();
    }

    /// <summary>Closes the manager and the store, keeping the directory.</summary>
    public async Task StopAsync()
    {
        await Indexes.DisposeAsync();
        Store.Dispose();
    }

    public async Task StartAsync()
    {
        Store = OpenStore(Root);
        Indexes = await IndexSet.OpenAsync(Store, IndexesDirectory, _options, NullLoggerFactory.Instance);
    }

    /// <summary>Waits (bounded) until no side-by-side build is pending and the index passed the store's last etag.</summary>
    public async Task CatchUpAsync(string name)
    {
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (Indexes.GetStatus(name) is { PendingDefinition: not null })
        {
            Assert.True(DateTime.UtcNow < deadline, $"index '{name}' did not swap in its rebuild within 120 s: {Indexes.GetStatus(name)}, store at {Store.LastEtag}, consumers {string.Join(",", Store.GetConsumers().Select(c => c.Name + "=" + c.AcknowledgedEtag))}, changes after 149: {string.Join(",", Store.GetChangesSince(149).Select(d => d.Etag + ":" + d.Flags))}");
            await Task.Delay(5);
        }

        Assert.True(await Indexes.WaitForIndexedEtagAsync(name, Store.LastEtag, TimeSpan.FromSeconds(120)), $"index '{name}' did not reach etag {Store.LastEtag}: {Indexes.GetStatus(name)}");
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await StopAsync();
        }
        finally
        {
            if (Directory.Exists(Root))
            {
                Directory.Delete(Root, recursive: true);
            }
        }
    }
}
