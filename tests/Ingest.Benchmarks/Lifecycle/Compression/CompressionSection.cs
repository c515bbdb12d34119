using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Documents;
using Ingest.Storage;

namespace Ingest.Benchmarks.Lifecycle.Compression;

/// <summary>
/// Document compression: bytes on disk per document and puts/s for the orders of the documents benchmark and
/// for log-like events, with compression on (<c>ingest</c>), off (<c>ingest-uncompressed</c>) and in SQLite;
/// gets/s by random id with it on and off. Also printed (not a row): the store compressing without dictionaries,
/// and zstd frames alone, which is what a collection too young for a dictionary gets.
/// <para>
/// Bytes on disk: the store is loaded in batches of 1,000 durable puts, closed (which flushes the journal into
/// the data file), and its data file's length divided by the documents. Journal files are not counted: they are
/// preallocated at a fixed size (the same with compression on and off) and recycled. SQLite: the database file
/// after close (its WAL checkpointed and removed).
/// </para>
/// </summary>
internal sealed class CompressionSection : ILifecycleSection
{
    private const string Orders = "compress-orders";
    private const string Logs = "compress-logs";
    private const string Gets = "get-compressed";
    private const string Ingest = "ingest";
    private const string Uncompressed = "ingest-uncompressed";
    private const string Sqlite = "sqlite";
    private const int BatchSize = 1000;

    public string Name => "compression";

    public IReadOnlyList<string> Workloads { get; } = [Orders, Logs, Gets];

    public IReadOnlyList<string> Systems { get; } = [Ingest, Uncompressed, Sqlite];

    public LifecycleSectionResult Run(LifecycleContext context)
    {
        var rows = new List<LifecycleRow>();
        var checks = new List<LifecycleCheck>();
        var (orderCount, logCount, getCount) = context.Quick ? (5_000, 20_000, 20_000) : (100_000, 500_000, 500_000);
        var orders = OrderDataset.Generate(orderCount, getCount, context.Seed);
        context.Log.WriteLine($"orders: {orders.Count:N0}, {orders.TotalBytes / orders.Count:N0} B of JSON each on average");
        if (context.Runs(Orders) || context.Runs(Gets))
        {
            LoadAll(context, Orders, orders, rows, checks, 2.0, keepForGets: context.Runs(Gets));
        }

        if (context.Runs(Logs))
        {
            var logs = LogDataset.Generate(logCount, 0, context.Seed + 1);
            context.Log.WriteLine($"log events: {logs.Count:N0}, {logs.TotalBytes / logs.Count:N0} B of JSON each on average, e.g. {LogDataset.Sample(logs)}");
            LoadAll(context, Logs, logs, rows, checks, 4.0, keepForGets: false);
        }

        return new LifecycleSectionResult(rows, checks, []);
    }

    private static void LoadAll(LifecycleContext context, string workload, OrderDataset data, List<LifecycleRow> rows, List<LifecycleCheck> checks, double target, bool keepForGets)
    {
        var measured = new Dictionary<string, Load>();
        string? compressedDirectory = null;
        string? uncompressedDirectory = null;
        var recordLoad = context.Runs(workload);
        foreach (var system in new[] { Ingest, Uncompressed })
        {
            if (!context.Runs(workload, system) && !(keepForGets && context.Runs(Gets, system)))
            {
                continue;
            }

            var options = StoreOptions(compression: system == Ingest);
            WarmUp(context, workload, system, data, directory => LoadIngest(directory, data, options, Math.Min(data.Count, 2 * BatchSize)));
            var dir = context.NewDirectory(system);
            var load = LoadIngest(dir, data, options, data.Count);
            measured[system] = load;
            context.Log.WriteLine($"  {workload} {system}: {load.PutsPerSecond:N0} puts/s, {load.BytesPerDocument:N1} B/doc on disk ({load.Note})");
            if (keepForGets)
            {
                _ = system == Ingest ? compressedDirectory = dir : uncompressedDirectory = dir;
            }
            else
            {
                Directory.Delete(dir, recursive: true);
            }
        }

        if (context.Runs(workload, Sqlite))
        {
            WarmUp(context, workload, Sqlite, data, directory => LoadSqlite(directory, data, Math.Min(data.Count, 2 * BatchSize)));
            var dir = context.NewDirectory(Sqlite);
            measured[Sqlite] = LoadSqlite(dir, data, data.Count);
            Directory.Delete(dir, recursive: true);
            context.Log.WriteLine($"  {workload} {Sqlite}: {measured[Sqlite].PutsPerSecond:N0} puts/s, {measured[Sqlite].BytesPerDocument:N1} B/doc on disk");
        }

        if (recordLoad)
        {
            PrintWithoutDictionaries(context, workload, data);
            foreach (var (system, load) in measured)
            {
                if (context.Runs(workload, system))
                {
                    rows.Add(new LifecycleRow(workload, system, load.PutsPerSecond, load.BytesPerDocument, "puts/s; B/doc on disk", load.Note));
                }
            }

            if (measured.TryGetValue(Ingest, out var on) && measured.TryGetValue(Uncompressed, out var off))
            {
                checks.Add(new LifecycleCheck(workload, "uncompressed B/doc / compressed B/doc", off.BytesPerDocument / on.BytesPerDocument, target));
                checks.Add(new LifecycleCheck(workload, "puts/s compressed / uncompressed", on.PutsPerSecond / off.PutsPerSecond, 0.9));
            }
        }

        if (keepForGets)
        {
            RunGets(context, data, compressedDirectory, uncompressedDirectory, rows, checks);
        }
    }

    private static void RunGets(LifecycleContext context, OrderDataset data, string? compressed, string? uncompressed, List<LifecycleRow> rows, List<LifecycleCheck> checks)
    {
        var rates = new Dictionary<string, double>();
        foreach (var (system, dir) in new[] { (Ingest, compressed), (Uncompressed, uncompressed) })
        {
            if (dir == null)
            {
                continue;
            }

            using (var store = DocumentStore.Open(dir, StoreOptions(compression: system == Ingest)))
            {
                GetAll(store, data.Lookups.AsSpan(0, data.Lookups.Length / 10)); // warm-up, untimed
                var started = Stopwatch.GetTimestamp();
                var bytes = GetAll(store, data.Lookups);
                var rate = data.Lookups.Length / Stopwatch.GetElapsedTime(started).TotalSeconds;
                rates[system] = rate;
                context.Log.WriteLine($"  {Gets} {system}: {rate:N0} gets/s ({bytes / data.Lookups.Length:N0} B of JSON each)");
                rows.Add(new LifecycleRow(Gets, system, rate, null, "gets/s", "orders by random id, one reader per 1,000 gets, each body read"));
            }

            Directory.Delete(dir, recursive: true);
        }

        if (rates.TryGetValue(Ingest, out var on) && rates.TryGetValue(Uncompressed, out var off))
        {
            checks.Add(new LifecycleCheck(Gets, "gets/s compressed / uncompressed", on / off, 0.8));
        }
    }

    private static long GetAll(DocumentStore store, ReadOnlySpan<string> ids)
    {
        long bytes = 0;
        for (var from = 0; from < ids.Length; from += BatchSize)
        {
            using var reader = store.BeginRead();
            foreach (var id in ids.Slice(from, Math.Min(BatchSize, ids.Length - from)))
            {
                if (!reader.TryGet(id, out var view))
                {
                    throw new InvalidOperationException($"{id} is missing after the load.");
                }

                bytes += view.Body.Length;
            }
        }

        return bytes;
    }

    /// <summary>The store with dictionaries never trained (every collection stays "young"), and zstd frames alone.</summary>
    private static void PrintWithoutDictionaries(LifecycleContext context, string workload, OrderDataset data)
    {
        var options = StoreOptions(compression: true);
        options.DictionaryTrainingDocuments = int.MaxValue;
        var dir = context.NewDirectory("no-dictionary");
        var load = LoadIngest(dir, data, options, data.Count);
        Directory.Delete(dir, recursive: true);

        long frames = 0;
        var smaller = 0;
        var timer = Stopwatch.StartNew();
        using (var compressor = new ZstdSharp.Compressor(options.CompressionLevel))
        {
            foreach (var body in data.Bodies)
            {
                var frame = compressor.Wrap(body).Length;
                frames += Math.Min(frame, body.Length);
                smaller += frame <= body.Length - (body.Length / 16) ? 1 : 0;
            }
        }

        var compressNs = timer.Elapsed.TotalNanoseconds / data.Count;
        context.Log.WriteLine($"  frames alone: {compressNs:N0} ns per body to compress");
        context.Log.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"  {workload} zstd without a dictionary (not a row): the store {load.BytesPerDocument:N1} B/doc on disk at {load.PutsPerSecond:N0} puts/s ({load.Note}); frames alone {(double)frames / data.Count:N1} B/doc against {(double)data.TotalBytes / data.Count:N1} B of JSON, {100.0 * smaller / data.Count:N0}% of bodies smaller by a sixteenth"));
    }

    private static void WarmUp(LifecycleContext context, string workload, string system, OrderDataset data, Func<string, Load> load)
    {
        var dir = context.NewDirectory($"warmup-{system}");
        load(dir);
        Directory.Delete(dir, recursive: true);
        context.Log.WriteLine($"  {workload} {system}: warmed up");
    }

    private static DocumentStoreOptions StoreOptions(bool compression) => new()
    {
        Compression = compression,
        Storage = new StorageOptions { SyncMode = SyncMode.Durable },
    };

    private static Load LoadIngest(string dir, OrderDataset data, DocumentStoreOptions options, int count)
    {
        double seconds;
        string ratio;
        using (var store = DocumentStore.Open(dir, options))
        {
            // Two batches in flight, as the server's batch writer keeps them (Ingest:Batching:MaxPendingBatches 2):
            // the next batch is validated (and compressed) on this thread while the writer commits the last one.
            WriteBatch[] batches = [new(), new()];
            Task?[] inFlight = [null, null];
            var started = Stopwatch.GetTimestamp();
            for (int from = 0, n = 0; from < count; from += BatchSize, n++)
            {
                var slot = n % 2;
                inFlight[slot]?.GetAwaiter().GetResult();
                var batch = batches[slot];
                batch.Clear();
                for (var i = from; i < Math.Min(count, from + BatchSize); i++)
                {
                    batch.Put(data.Ids[i], OrderDataset.Collection, data.Bodies[i]);
                }

                inFlight[slot] = store.WriteAsync(batch);
            }

            foreach (var task in inFlight)
            {
                task?.GetAwaiter().GetResult();
            }

            seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            var stats = store.GetStats().Collections[0];
            ratio = string.Create(CultureInfo.InvariantCulture, $"bodies {(double)stats.BodyBytes / Math.Max(1, stats.StoredBodyBytes):0.00}x, dictionary {stats.DictionaryId}");
        }

        var dataFile = new FileInfo(Path.Combine(dir, "data.ingest")).Length;
        var journals = Directory.GetFiles(dir, "journal.*").Sum(f => new FileInfo(f).Length);
        var note = string.Create(CultureInfo.InvariantCulture, $"{ratio}; data file {dataFile / 1048576.0:N1} MiB counted, journals {journals / 1048576.0:N0} MiB preallocated not counted");
        return new Load(count / seconds, (double)dataFile / count, note);
    }

    private static Load LoadSqlite(string dir, OrderDataset data, int count)
    {
        double seconds;
        using (var sqlite = new SqliteDocumentSystem(dir))
        {
            var started = Stopwatch.GetTimestamp();
            for (var from = 0; from < count; from += BatchSize)
            {
                sqlite.PutBatch(data, from, Math.Min(BatchSize, count - from));
            }

            seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        }

        Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
        var bytes = Directory.GetFiles(dir).Sum(f => new FileInfo(f).Length);
        return new Load(count / seconds, (double)bytes / count, "database file after close (WAL checkpointed)");
    }

    private sealed record Load(double PutsPerSecond, double BytesPerDocument, string Note);
}
