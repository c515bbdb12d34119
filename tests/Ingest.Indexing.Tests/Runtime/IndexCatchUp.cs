namespace Ingest.Indexing.Tests.Runtime;

/// <summary>The index tests' wait for an index of an <see cref="IndexedStore"/> to catch up with its store.</summary>
internal static class IndexCatchUp
{
    /// <summary>Waits (bounded) until no side-by-side build is pending and the index passed the store's last etag.</summary>
    public static async Task CatchUpAsync(this IndexedStore host, string name)
    {
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (host.Indexes.GetStatus(name) is { PendingDefinition: not null })
        {
            Assert.True(DateTime.UtcNow < deadline, $"index '{name}' did not swap in its rebuild within 120 s: {host.Indexes.GetStatus(name)}, store at {host.Store.LastEtag}, consumers {string.Join(",", host.Store.GetConsumers().Select(c => c.Name + "=" + c.AcknowledgedEtag))}, changes after 149: {string.Join(",", host.Store.GetChangesSince(149).Select(d => d.Etag + ":" + d.Flags))}");
            await Task.Delay(5);
        }

        Assert.True(await host.Indexes.WaitForIndexedEtagAsync(name, host.Store.LastEtag, TimeSpan.FromSeconds(120)), $"index '{name}' did not reach etag {host.Store.LastEtag}: {host.Indexes.GetStatus(name)}");
    }
}
