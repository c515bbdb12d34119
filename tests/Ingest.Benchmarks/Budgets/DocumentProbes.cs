using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Documents;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// The document store's hot paths on one durable store holding generated orders (about 1.1 KB of JSON each, as in
/// the documents benchmark). Ids are made before any round, so their strings are not counted.
/// </summary>
internal sealed class DocumentProbes : IDisposable
{
    private const int Bodies = 1_000;
    private const int LoadedDocuments = 20_000;
    private const int BatchSize = 1_000;
    private const int BatchesPerRound = 3;
    private const int GetsPerRound = 50_000;
    private const int StoreGetsPerRound = 5_000;

    // Write paths: their trees grow each round, so a fixed warm-up keeps the measured state the same on any machine.
    private const int WarmupRounds = 5;

    private const string PositionTopic = "orders";

    private readonly DocumentStore _store;
    private readonly OrderDataset _bodies;
    private readonly string[] _ids;
    private readonly string[] _lookups;
    private readonly WriteBatch _batch = new();
    private int _nextId;

    public DocumentProbes(string directory, int seed)
    {
        _store = DocumentStore.Open(directory, new DocumentStoreOptions { Storage = StorageProbes.BudgetStorageOptions() });
        _bodies = OrderDataset.Generate(Bodies, 0, seed);

        // Fresh ids for the load and for every round of put-batched and put-batched-positioned; shuffled, as the
        // documents benchmark's are, so puts land on random leaves of the id tree.
        _ids = new string[LoadedDocuments + (2 * (WarmupRounds + AllocationRunner.RecordedRounds) * BatchesPerRound * BatchSize)];
        for (var i = 0; i < _ids.Length; i++)
        {
            var n = (int)(((long)i * 7_368_787) % 100_000_007);
            _ids[i] = string.Create(CultureInfo.InvariantCulture, $"Orders/{n:D9}-B");
        }

        var random = new Random(seed);
        _lookups = new string[GetsPerRound];
        for (var i = 0; i < _lookups.Length; i++)
        {
            _lookups[i] = _ids[random.Next(LoadedDocuments)];
        }

        for (var loaded = 0; loaded < LoadedDocuments; loaded += BatchSize)
        {
            PutBatch(positioned: false);
        }
    }

    public IEnumerable<AllocationProbe> Probes =>
    [
        new("documents/get-by-id", "get", AllocationCounter.Thread, GetsInOneReader),
        new("documents/store-get", "get", AllocationCounter.Thread, StoreGets),
        new("documents/put-batched", "document", AllocationCounter.Process, PutBatches, WarmupRounds),
        new("documents/put-batched-positioned", "document", AllocationCounter.Process, PutPositionedBatches, WarmupRounds),
    ];

    public void Dispose() => _store.Dispose();

    // DocumentReader.TryGet inside one open reader: what the documents benchmark's get-by-id times. The reader
    // object (one per round) is a few hundred bytes over 50,000 gets.
    private long GetsInOneReader()
    {
        using var reader = _store.BeginRead();
        var found = 0;
        foreach (var id in _lookups)
        {
            if (reader.TryGet(id, out var document) && document.Body.Length > 0)
            {
                found++;
            }
        }

        return found == _lookups.Length ? found : throw new InvalidOperationException($"{_lookups.Length - found} gets found nothing");
    }

    // DocumentStore.Get: a reader of its own and a copy of the document (id, collection and body), what the HTTP API returns.
    private long StoreGets()
    {
        for (var i = 0; i < StoreGetsPerRound; i++)
        {
            if (_store.Get(_lookups[i]) is null)
            {
                throw new InvalidOperationException($"{_lookups[i]} was not found");
            }
        }

        return StoreGetsPerRound;
    }

    // Batches of BatchSize new documents, each written durably before the next (the writer thread commits them).
    private long PutBatches()
    {
        for (var batch = 0; batch < BatchesPerRound; batch++)
        {
            PutBatch(positioned: false);
        }

        return BatchesPerRound * BatchSize;
    }

    // As put-batched, each put recording the Kafka position it came from (what the ingestion service writes).
    private long PutPositionedBatches()
    {
        for (var batch = 0; batch < BatchesPerRound; batch++)
        {
            PutBatch(positioned: true);
        }

        return BatchesPerRound * BatchSize;
    }

    private void PutBatch(bool positioned)
    {
        if (_nextId + BatchSize > _ids.Length)
        {
            throw new InvalidOperationException($"the put-batched probe ran out of its {_ids.Length} prepared ids");
        }

        _batch.Clear();
        for (var i = 0; i < BatchSize; i++)
        {
            LogPosition? position = positioned ? new LogPosition(PositionTopic, _nextId % 3, _nextId) : null;
            _batch.Put(_ids[_nextId], OrderDataset.Collection, _bodies.Bodies[_nextId % Bodies], position);
            _nextId++;
        }

        _store.Write(_batch);
    }
}
