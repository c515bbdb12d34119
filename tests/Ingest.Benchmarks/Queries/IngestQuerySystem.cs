using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Ingest.Benchmarks.Documents;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
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
/// so a query's figure is the execution's alone. The store and indexes are laid out as a server's data directory
/// (<c>store</c>, <c>indexes</c>), so the Grafana workload starts a server on them afterwards instead of loading again.
/// <para>
/// The map-reduce workloads have two rows: <see cref="QueriesCommand.IngestQueryTime"/>, a <c>group by</c> over the
/// map index at query time, and <see cref="QueriesCommand.Ingest"/>, <c>from index '...'</c> over a map-reduce index
/// per question (<see cref="MapReduceIndexes"/>), built in <see cref="Complete"/> after the map index, each reporting
/// its cost per order beside the map index's. With <c>compareMapBuilds</c>, each map-reduce index's build is followed by
/// a map index over exactly its fields (the same definition without the reduce), timed the same way and then deleted,
/// so the reduce's share of the build is measured rather than guessed.
/// </para>
/// </summary>
internal sealed class IngestQuerySystem : IQuerySystem
{
    /// <summary>The server's store folder in its data directory (Ingest.Server's StoreRegistration.StoreFolder).</summary>
    public const string StoreFolder = "store";

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

    /// <summary>Each map-reduce workload's question (<see cref="QueryWorkload.Question"/>): its index, and its query on that index.</summary>
    public static readonly IReadOnlyDictionary<string, (IndexDefinition Index, string Query)> MapReduceIndexes = new Dictionary<string, (IndexDefinition, string)>
    {
        [QueryWorkload.MrRevenuePerHour] = (
            MapReduceIndex("Orders/RevenuePerHour", [new GroupKeyDefinition("Hour", "OrderedAt", "1h"), new GroupKeyDefinition("Status", "Status")], "Status", "OrderedAt"),
            "from index 'Orders/RevenuePerHour' where Hour between '2024-03-01T00:00:00Z' and '2024-03-31T23:00:00Z' select Hour, Status, Revenue"),
        [QueryWorkload.MrTopCompanies] = (
            MapReduceIndex("Orders/RevenuePerCompany", [new GroupKeyDefinition("Company", "Company")], "Company"),
            "from index 'Orders/RevenuePerCompany' select Company, Revenue order by Revenue desc limit 10"),
        [QueryWorkload.MrCountPerStatus] = (
            MapReduceIndex("Orders/CountPerStatus", [new GroupKeyDefinition("Status", "Status")], "Status"),
            "from index 'Orders/CountPerStatus' select Status, Orders"),
    };

    private static readonly string[] ShapeRows = [QueriesCommand.Ingest];
    private static readonly string[] MapReduceRows = [QueriesCommand.Ingest, QueriesCommand.IngestQueryTime];
    private readonly DocumentStore _store;
    private readonly QueryEngine _engine;
    private readonly bool _compareMapBuilds;
    private long _orders;
    private bool _disposed;

    public IngestQuerySystem(string directory, bool compareMapBuilds = false)
    {
        _compareMapBuilds = compareMapBuilds;
        DataDirectory = directory;
        _store = DocumentStore.Open(Path.Combine(directory, StoreFolder), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
        _engine = new QueryEngine(_store, directory);
        _engine.OpenAsync().GetAwaiter().GetResult();
    }

    /// <summary>The data directory, a server's layout.</summary>
    public string DataDirectory { get; }

    public string Name => QueriesCommand.Ingest;

    public string Description => "Ingest: document store + static index (Status, Company keyword; Total number; OrderedAt datetime; Lines[].ProductName text), QueryParser + QueryExecutor";

    public void Add(OrderChunk chunk)
    {
        PutAll(_store, chunk.Data);
        _orders += chunk.Data.Count;
    }

    /// <summary>Builds the index over the stored orders and says what it cost per order (a map-reduce index's build, beside it, is compared with it).</summary>
    public void Complete()
    {
        Build(Index);
        foreach (var (index, _) in MapReduceIndexes.Values)
        {
            var reduced = Build(index);
            if (_compareMapBuilds)
            {
                CompareWithMapIndex(index, reduced);
            }
        }
    }

    /// <summary>Builds a map index over the map-reduce index's fields, reports both costs per order, and deletes it.</summary>
    private void CompareWithMapIndex(IndexDefinition index, TimeSpan reduced)
    {
        var map = new IndexDefinition(index.Name + "/MapOnly", index.Collections, index.Fields);
        var mapped = Build(map);
        if (!_engine.Indexes.DeleteAsync(map.Name).GetAwaiter().GetResult())
        {
            throw new InvalidOperationException($"the index '{map.Name}' could not be deleted after its build");
        }

        var orders = Math.Max(1, _orders);
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"[{Name}] build cost per order: map-reduce '{index.Name}' {reduced.TotalMicroseconds / orders:N2} us, a map index over the same fields {mapped.TotalMicroseconds / orders:N2} us ({reduced / mapped:N2}x)"));
    }

    /// <summary>
    /// A map-reduce index over the orders: keyword fields by name, Total (summed as Revenue, counted as Orders), and
    /// OrderedAt when a key buckets it.
    /// </summary>
    private static IndexDefinition MapReduceIndex(string name, GroupKeyDefinition[] keys, params string[] fields)
    {
        var definitions = new List<IndexFieldDefinition> { new("Total", "Total", IndexFieldType.Number) };
        foreach (var field in fields)
        {
            definitions.Add(new IndexFieldDefinition(field, field, field == "OrderedAt" ? IndexFieldType.DateTime : IndexFieldType.Keyword));
        }

        return new IndexDefinition(name, [OrderDataset.Collection], definitions)
        {
            Reduce = new ReduceDefinition(keys, [new AggregateDefinition("Orders", AggregateKind.Count), new AggregateDefinition("Revenue", AggregateKind.Sum, "Total")]),
        };
    }

    private TimeSpan Build(IndexDefinition index)
    {
        var indexes = _engine.Indexes;
        var build = Stopwatch.StartNew();
        indexes.PutAsync(index).GetAwaiter().GetResult();
        if (!indexes.WaitForIndexedEtagAsync(index.Name, _store.LastEtag, TimeSpan.FromMinutes(60)).GetAwaiter().GetResult())
        {
            throw new InvalidOperationException($"the index did not catch up: {indexes.GetStatus(index.Name)}");
        }

        var orders = _orders;
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"[{Name}] index '{index.Name}' built over {orders:N0} orders in {build.Elapsed.TotalSeconds:N1} s, {build.Elapsed.TotalMicroseconds / Math.Max(1, orders):N1} us per order"));
        return build.Elapsed;
    }

    public IReadOnlyList<string> Rows(QueryWorkload workload) => workload.MapReduce ? MapReduceRows : ShapeRows;

    /// <summary>
    /// The index a row queries and its text: the map-reduce workloads' <see cref="QueriesCommand.Ingest"/> row their
    /// map-reduce index with <c>from index '...'</c>; every other row the map index with the workload's query (the
    /// map-reduce workloads' <c>group by</c> at query time).
    /// </summary>
    private static (IndexDefinition Index, string Query) QueryFor(QueryWorkload workload, string row) =>
        row == QueriesCommand.Ingest && workload.MapReduce ? MapReduceIndexes[workload.Question] : (Index, workload.Query);

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

    /// <summary>Closes the engine and the store; again is a no-op (the pass closes it before the Grafana workload opens the same directory).</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
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

        public long Run(QueryWorkload workload, string row)
        {
            var (index, query) = QueryFor(workload, row);
            var prepared = _executor.Prepare(QueryParser.Parse(query), index, QueryParameters.None, continuation: null);
            using var reader = _indexes.BeginRead(index.Name) ?? throw new InvalidOperationException($"the index '{index.Name}' is not readable");
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
