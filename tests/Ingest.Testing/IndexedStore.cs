using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Testing;

/// <summary>
/// A real document store (in <c>docs/</c>, not synced) and its index manager (in <c>indexes/</c>) on a test directory:
/// stopped, started and reopened at will; on dispose both are closed and a directory of its own is deleted.
/// </summary>
public sealed class IndexedStore : IAsyncDisposable
{
    public const string StoreFolder = "docs";
    public const string IndexesFolder = "indexes";

    private readonly TestDirectory? _ownDirectory;
    private readonly IndexingOptions _options;

    private IndexedStore(string root, TestDirectory? ownDirectory, IndexingOptions options)
    {
        Root = root;
        _ownDirectory = ownDirectory;
        _options = options;
    }

    public string Root { get; }

    public string IndexesDirectory => Path.Combine(Root, IndexesFolder);

    public DocumentStore Store { get; private set; } = null!;

    public IndexSet Indexes { get; private set; } = null!;

    /// <summary>
    /// Opens the store and the manager on a new test directory, or on <paramref name="root"/>, which is left in place
    /// on dispose: whoever made it deletes it.
    /// </summary>
    public static async Task<IndexedStore> OpenAsync(IndexingOptions? options = null, string? root = null)
    {
        var ownDirectory = root == null ? new TestDirectory() : null;
        var host = new IndexedStore(root ?? ownDirectory!.Path, ownDirectory, options ?? new IndexingOptions());
        try
        {
            await host.StartAsync();
        }
        catch
        {
            await host.DisposeAsync();
            throw;
        }

        return host;
    }

    /// <summary>The store of the directory <paramref name="root"/> alone, as <see cref="StartAsync"/> opens it.</summary>
    public static DocumentStore OpenStore(string root) =>
        DocumentStore.Open(Path.Combine(root, StoreFolder), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });

    public async Task ReopenAsync()
    {
        await StopAsync();
        await StartAsync();
    }

    /// <summary>Closes the manager and the store, keeping the directory.</summary>
    public async Task StopAsync()
    {
        if (Indexes != null)
        {
            await Indexes.DisposeAsync();
            Indexes = null!;
        }

        Store?.Dispose();
        Store = null!;
    }

    public async Task StartAsync()
    {
        Store = OpenStore(Root);
        Indexes = await IndexSet.OpenAsync(Store, IndexesDirectory, _options, NullLoggerFactory.Instance);
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await StopAsync();
        }
        finally
        {
            _ownDirectory?.Dispose();
        }
    }
}
