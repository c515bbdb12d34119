using System.Diagnostics;
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

    public void Settle()
    {
        var backlog = _store.FlushBacklogPages;
        if (backlog == 0)
        {
            return;
        }

        var clock = Stopwatch.StartNew();
        while (_store.FlushBacklogPages > 0)
        {
            if (clock.Elapsed > TimeSpan.FromMinutes(2))
            {
                throw new TimeoutException($"the flusher still holds {_store.FlushBacklogPages} pages after 2 minutes");
            }

            Thread.Sleep(5);
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[ingest] settle (not measured): the flusher still held {backlog:N0} pages; {clock.Elapsed.TotalMilliseconds:N0} ms until it wrote them"));
    }

    public void Dispose() => _store.Dispose();

    private sealed class ReadSession(DocumentStore store) : IDocumentReadSession
    {
        private DocumentReader? _reader;

        public void Begin() => _reader = store.BeginRead();

        public int Get(string id) => _reader!.TryGet(id, out var document) ? document.Body.Length : -1;

        public void End()
        {
            _reader?.Dispose();
            _reader = null;
        }

        public void Dispose() => End();
    }
}
