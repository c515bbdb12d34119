using Ingest.Documents;
using Ingest.Documents.Expiration;
using Ingest.Indexing.Definitions;
using Ingest.Query;

namespace Ingest.Benchmarks.Lifecycle.Expiration;

/// <summary>The Ingest side of the expiration cells: a durable store with the two indexes, opened as the server opens them.</summary>
internal sealed class ExpirationStores : IDisposable
{
    public static readonly IndexDefinition[] Indexes =
    [
        new("Orders/ByCompany", [ExpiringOrders.Collection], [new IndexFieldDefinition("Company", "Company", IndexFieldType.Keyword)]),
        new("Orders/ByTotal", [ExpiringOrders.Collection], [new IndexFieldDefinition("Total", "Total", IndexFieldType.Number)]),
    ];

    private ExpirationStores(DocumentStore store, QueryEngine engine)
    {
        Store = store;
        Engine = engine;
    }

    public DocumentStore Store { get; }

    public QueryEngine Engine { get; }

    /// <summary>Opens a durable store in <paramref name="directory"/>, defines the two indexes and loads <paramref name="orders"/>.</summary>
    public static ExpirationStores Open(string directory, ExpiringOrders orders)
    {
        var store = DocumentStore.Open(Path.Combine(directory, "store"));
        var engine = new QueryEngine(store, directory);
        engine.OpenAsync().GetAwaiter().GetResult();
        var stores = new ExpirationStores(store, engine);
        foreach (var index in Indexes)
        {
            engine.Indexes.PutAsync(index).GetAwaiter().GetResult();
        }

        Load(store, orders);
        stores.WaitForIndexes();
        return stores;
    }

    /// <summary>Stores the orders in batches of 10,000, the size a source's batches reach under load.</summary>
    public static void Load(DocumentStore store, ExpiringOrders orders)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < orders.Count; i++)
        {
            batch.Put(orders.Ids[i], ExpiringOrders.Collection, orders.Bodies[i]);
            if (batch.Count == 10_000 || i == orders.Count - 1)
            {
                store.Write(batch);
                batch = new WriteBatch();
            }
        }
    }

    /// <summary>Waits until both indexes have processed every change in the store (deletes included).</summary>
    public void WaitForIndexes() => WaitForIndexes(Engine, Store.LastEtag);

    public static void WaitForIndexes(QueryEngine engine, long etag)
    {
        foreach (var index in Indexes)
        {
            if (!engine.Indexes.WaitForIndexedEtagAsync(index.Name, etag, TimeSpan.FromMinutes(30)).GetAwaiter().GetResult())
            {
                throw new InvalidOperationException($"index {index.Name} did not catch up with etag {etag}: {engine.Indexes.GetStatus(index.Name)}");
            }
        }
    }

    /// <summary>
    /// What the expiration task does in a run: due documents in batches of 10,000 (its default), one transaction each,
    /// paced as the server's task paces them by default (a tenth of the time while other writes go on, flat out otherwise).
    /// </summary>
    public long ExpireAll()
    {
        long deleted = 0;
        var now = DateTime.UtcNow;
        var pacer = new ExpirationPacer(0.1);
        while (true)
        {
            pacer.Starting(Store);
            var batch = Store.DeleteExpiredAsync(now, 10_000).GetAwaiter().GetResult();
            deleted += batch.Deleted;
            if (!batch.More)
            {
                return deleted;
            }

            if (pacer.Finished(Store, batch.Deleted) is { Ticks: > 0 } pause)
            {
                Thread.Sleep(pause);
            }
        }
    }

    public void Dispose()
    {
        Engine.DisposeAsync().AsTask().GetAwaiter().GetResult();
        Store.Dispose();
    }
}
