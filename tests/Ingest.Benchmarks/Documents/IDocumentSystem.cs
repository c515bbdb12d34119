namespace Ingest.Benchmarks.Documents;

/// <summary>A document store under benchmark: the Ingest store or the SQLite baseline.</summary>
internal interface IDocumentSystem : IDisposable
{
    string Name { get; }

    string Description { get; }

    /// <summary>Puts documents [from, from + count) of the dataset in one durable transaction.</summary>
    void PutBatch(OrderDataset data, int from, int count);

    /// <summary>Puts one document in its own durable batch; called from many threads at once.</summary>
    void PutSingle(string id, byte[] json);

    /// <summary>Deletes documents [from, from + count) in one durable transaction (with tombstones).</summary>
    void DeleteBatch(OrderDataset data, int from, int count);

    /// <summary>Reads every document and tombstone in etag order; returns how many.</summary>
    long ScanChanges();

    /// <summary>A reader for one thread.</summary>
    IDocumentReadSession OpenReadSession();

    /// <summary>
    /// Waits for background work that earlier commits left (Ingest's flusher writing committed pages into the data file),
    /// so a timed read workload right after the load does not pay for the load, as the storage benchmark's
    /// <c>IKeyValueStore.Settle</c> does. SQLite does that work inside its commits (its WAL checkpoints), so it has nothing to wait for.
    /// </summary>
    void Settle()
    {
    }
}
