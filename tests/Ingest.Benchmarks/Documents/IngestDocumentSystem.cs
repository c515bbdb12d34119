using System.Globalization;
using Ingest.Documents;
using Ingest.Storage;

namespace Ingest.Benchmarks.Documents;

/// <summary>The Ingest document store, durable commits (one fdatasync each), default options.</summary>
internal sealed class IngestDocumentSystem(string directory) : IDocumentSystem
{
    private readonly DocumentStore _store = DocumentStore.Open(directory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.Durable } });
    private readonly WriteBatch _batch = new();

    public string Name => "ingest";

    public string Description => "Ingest.Documents, SyncMode.Durable, group commit";

    public void PutBatch(OrderDataset data, int from, int count)
    {
        _batch.Clear();
        for (var i = from; i < from + count; i++)
        {
            _batch.Put(data.Ids[i], OrderDataset.Collection, data.Bodies[i]);
        }

        _store.Write(_batch);
    }

    public void PutSingle(string id, byte[] json) => _store.Write(new WriteBatch().Put(id, OrderDataset.Collection, json));

    public void DeleteBatch(OrderDataset data, int from, int count)
    {
        _batch.Clear();
        for (var i = from; i < from + count; i++)
        {
            _batch.Delete(data.Ids[i]);
        }

        _store.Write(_batch);
    }

    public long ScanChanges()
    {
        using var reader = _store.BeginRead();
        long count = 0;
        long bytes = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            bytes += change.Body.Length + change.IdUtf8.Length;
            count++;
        }

        GC.KeepAlive(bytes);
        return count;
    }

    public IDocumentReadSession OpenReadSession() => new ReadSession(_store);

    public void Dispose() => _store.Dispose();

    /// <summary>
    /// Says how many committed pages waited for the flusher when the session's first read began: a read workload right
    /// after the load shares the machine with the writes of that backlog (get-by-id-random-1t fell by that in 2026-11-28's run).
    /// </summary>
    private sealed class ReadSession(DocumentStore store) : IDocumentReadSession
    {
        private DocumentReader? _reader;
        private int _backlogAtStart = -1;

        public void Begin()
        {
            if (_backlogAtStart < 0)
            {
                _backlogAtStart = store.FlushBacklogPages;
            }

            _reader = store.BeginRead();
        }

        public int Get(string id) => _reader!.TryGet(id, out var document) ? document.Body.Length : -1;

        public void End()
        {
            _reader?.Dispose();
            _reader = null;
        }

        public void Dispose()
        {
            End();
            if (_backlogAtStart >= 0)
            {
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[ingest] flush backlog when the session's first read began: {_backlogAtStart:N0} pages, now {store.FlushBacklogPages:N0}"));
                _backlogAtStart = -1;
            }
        }
    }
}
