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

    public IndexSet Indexes => _indexed.Indexes;

    public IndexChooser Chooser { get; private set; } = null!;

    public static async Task<AutoIndexHost> OpenAsync(AutoIndexOptions? options = null)
    {
        var host = new AutoIndexHost(await IndexedStore.OpenAsync(), options ?? new AutoIndexOptions(), new SettableTime());
        try
        {
            host.OpenChooser();
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
        Assert.True(await Indexes.WaitForIndexedEtagAsync(name, Store.LastEtag, TimeSpan.FromSeconds(60)), $"index '{name}' did not reach etag {Store.LastEtag}: {Indexes.GetStatus(name)}");

    public IReadOnlyList<string> IndexNames() => [.. Indexes.GetStatuses().Select(s => s.Definition.Name)];

    public async ValueTask DisposeAsync()
    {
        try
        {
            await Chooser.DisposeAsync();
        }
        finally
        {
            await _indexed.DisposeAsync();
        }
    }

    private async Task StartAsync()
    {
        await _indexed.StartAsync();
        OpenChooser();
    }

    private async Task StopAsync()
    {
        await Chooser.DisposeAsync();
        await _indexed.StopAsync();
    }

    private void OpenChooser() =>
        Chooser = IndexChooser.Open(Indexes, Store, Path.Combine(_indexed.Root, "queries"), Options, Time, NullLogger<IndexChooser>.Instance);
}
