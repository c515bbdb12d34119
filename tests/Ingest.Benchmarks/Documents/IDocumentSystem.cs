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
}
