using System.Buffers;
using System.Text.Json;
using Ingest.Benchmarks.Documents;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Storage;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// The document store with a static index over the orders, opened by <see cref="QueryEngine"/> as the server does;
/// queried with the engine's executor against that index: parse, prepare, open a reader, run, write the JSON rows (to
/// a reused buffer instead of a socket). The engine's choice of index, staleness check and rebuild retry are left out,
/// so a query's figure is the execution's alone.
/// </summary>
internal sealed class IngestQuerySystem : IQuerySystem
{
    public static readonly IndexDefinition Index = new(
        "Orders/Queries",
        [OrderDataset.Collection],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Company", "Company", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("ProductName", "Lines[].ProductName", IndexFieldType.Text),
        ]);

    private readonly DocumentStore _store;
    private readonly QueryEngine _engine;

    public IngestQuerySystem(string directory)
    {
        _store = DocumentStore.Open(Path.Combine(directory, "docs"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        _engine = new QueryEngine(_store, directory);
        _engine.OpenAsync().GetAwaiter().GetResult();
    }

    public string Name => QueriesCommand.Ingest;

    public string Description => "Ingest: document store + static index (Status, Company keyword; Total number; OrderedAt datetime; Lines[].ProductName text), QueryParser + QueryExecutor";

    public void Load(OrderDataset data)
    {
        PutAll(_store, data);
        var indexes = _engine.Indexes;
        indexes.PutAsync(Index).GetAwaiter().GetResult();
        if (!indexes.WaitForIndexedEtagAsync(Index.Name, _store.LastEtag, TimeSpan.FromMinutes(10)).GetAwaiter().GetResult())
        {
            throw new InvalidOperationException($"the index did not catch up: {indexes.GetStatus(Index.Name)}");
        }
    }

    /// <summary>Stores every order in batches of 10,000 (the grafana-timeseries workload loads its server's store the same way).</summary>
    public static void PutAll(DocumentStore store, OrderDataset data)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < data.Count; i++)
        {
            batch.Put(data.Ids[i], OrderDataset.Collection, data.Bodies[i]);
            if (batch.Count == 10_000 || i == data.Count - 1)
            {
                store.WriteAsync(batch).GetAwaiter().GetResult();
                batch = new WriteBatch();
            }
        }
    }

    public IQuerySession OpenSession() => new Session(this);

    public void Dispose()
    {
        _engine.DisposeAsync().AsTask().GetAwaiter().GetResult();
        _store.Dispose();
    }

    private sealed class Session : IQuerySession
    {
        private static readonly Func<CancellationToken, ValueTask> NoFlush = _ => ValueTask.CompletedTask;
        private readonly QueryExecutor _executor;
        private readonly IndexSet _indexes;
        private readonly ArrayBufferWriter<byte> _buffer = new(1 << 16);
        private readonly Utf8JsonWriter _writer;

        public Session(IngestQuerySystem system)
        {
            _executor = system._engine.Executor;
            _indexes = system._engine.Indexes;
            _writer = new Utf8JsonWriter(_buffer);
        }

        public long Run(QueryWorkload workload)
        {
            var prepared = _executor.Prepare(QueryParser.Parse(workload.Query), Index, QueryParameters.None, continuation: null);
            using var reader = _indexes.BeginRead(Index.Name) ?? throw new InvalidOperationException("the index is not readable");
            using var results = _executor.Run(prepared, reader, CancellationToken.None);
            _buffer.ResetWrittenCount();
            _writer.Reset(_buffer);
            _writer.WriteStartArray();
            var writing = results.WriteResultsAsync(_writer, NoFlush, CancellationToken.None);
            if (!writing.IsCompleted)
            {
                writing.GetAwaiter().GetResult();
            }

            writing.GetAwaiter().GetResult();
            _writer.WriteEndArray();
            _writer.Flush();
            return results.TotalResults + _buffer.WrittenCount;
        }

        public void Dispose() => _writer.Dispose();
    }
}
