using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Query.Tests.AutoIndexes;

/// <summary>An <see cref="IndexedStore"/> with an automatic-index catalog (in <c>queries/</c>) over it; reopened at will.</summary>
internal sealed class AutoIndexHost : IAsyncDisposable
{
    private readonly IndexedStore _indexed;

    private AutoIndexHost(IndexedStore indexed, AutoIndexOptions options, SettableTime time)
    {
        _indexed = indexed;
        Options = options;
        Time = time;
    }

    public AutoIndexOptions Options { get; }

    public SettableTime Time { get; }

    public DocumentStore Store => _indexed.Store;

    public IndexManager Manager => _indexed.Manager;

    public AutoIndexCatalog Catalog { get; private set; } = null!;

    public static async Task<AutoIndexHost> OpenAsync(AutoIndexOptions? options = null)
    {
        var host = new AutoIndexHost(await IndexedStore.OpenAsync(), options ?? new AutoIndexOptions(), new SettableTime());
        try
        {
            host.OpenCatalog();
        }
        catch
        {
            await host._indexed.DisposeAsync();
            throw;
        }

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
        Assert.True(await Manager.WaitForIndexedEtagAsync(name, Store.LastEtag, TimeSpan.FromSeconds(60)), $"index '{name}' did not reach etag {Store.LastEtag}: {Manager.GetStatus(name)}");

    public IReadOnlyList<string> IndexNames() => [.. Manager.GetStatuses().Select(s => s.Definition.Name)];

    public async ValueTask DisposeAsync()
    {
        try
        {
            await Catalog.DisposeAsync();
        }
        finally
        {
            await _indexed.DisposeAsync();
        }
    }

    private async Task StartAsync()
    {
        await _indexed.StartAsync();
        OpenCatalog();
    }

    private async Task StopAsync()
    {
        await Catalog.DisposeAsync();
        await _indexed.StopAsync();
    }

    private void OpenCatalog() =>
        Catalog = AutoIndexCatalog.Open(Manager, Store, Path.Combine(_indexed.Root, "queries"), Options, Time, NullLogger<AutoIndexCatalog>.Instance);
}
