using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Queries;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Query;
using Ingest.Storage;

namespace Ingest.Benchmarks.Lifecycle.Disk;

/// <summary>
/// <c>index-disk</c>: the bytes on disk of the ten automatic indexes that queries on ten fields of 3,000 generated
/// orders make (each widens the last, as the query engine does), divided by the store's own bytes for those orders;
/// the note gives one empty index's bytes and what is left after the automatic-index sweep. It also compacts a store
/// with half its orders deleted and prints how long that took and what it freed (a log line, not a JSON row).
/// </summary>
internal sealed class IndexDiskSection : ILifecycleSection
{
    public const string Workload = "index-disk";
    public const string System = "ingest";
    private const int Orders = 3_000;
    private const double Target = 2;

    private static readonly string[] Queries =
    [
        "from Orders where Company = 'companies/1-A'",
        "from Orders where Employee = 'employees/1-A'",
        "from Orders where ShipVia = 'shippers/1-A'",
        "from Orders where Status = 'paid'",
        "from Orders where Freight > 100",
        "from Orders where Total > 1000",
        "from Orders where OrderedAt >= '2024-06-01T00:00:00Z'",
        "from Orders where ShippedAt >= '2024-06-01T00:00:00Z'",
        "from Orders where ShipTo.City = 'Berlin'",
        "from Orders where ShipTo.PostalCode = '12345'",
    ];

    public string Name => "disk";

    public IReadOnlyList<string> Workloads => [Workload];

    public IReadOnlyList<string> Systems => [System];

    public LifecycleSectionResult Run(LifecycleContext context)
    {
        if (!context.Runs(Workload, System))
        {
            return new([], [], []);
        }

        // Bytes, not time, are measured; the warm-up still runs every step once, as every cell does.
        Measure(context, OrderDataset.Generate(300, 0, context.Seed + 1), log: false);
        var measured = Measure(context, OrderDataset.Generate(Orders, 0, context.Seed), log: true);
        // The ten as made: each query widened the last index into a new one (1, 2, ... 10 fields), measured as it was
        // made; the engine deletes the one it widened once the new one caught up, so fewer stay on disk at the end.
        var ratio = measured.MadeBytes / (double)measured.StoreBytes;
        var note = string.Create(
            CultureInfo.InvariantCulture,
            $"{measured.Made} automatic indexes as made (1 to {measured.Made} fields) {Mb(measured.MadeBytes)} over a store of {Mb(measured.StoreBytes)} ({Orders:N0} orders); {measured.Indexes} left on disk after the queries {Mb(measured.IndexBytes)} ({measured.IndexBytes / (double)measured.StoreBytes:N2}x); one empty index {measured.EmptyIndexBytes / 1024.0:N0} KiB");
        context.Log.WriteLine($"[{System}] {Workload}: {ratio:N2} ({note})");

        Compaction(context);
        return new(
            [new LifecycleRow(Workload, System, null, ratio, "index bytes / store bytes", note)],
            [new LifecycleCheck(Workload, "bytes of ten automatic indexes / the store's bytes", ratio, Target, AtMost: true)],
            []);
    }

    private sealed record Measurement(
        int Indexes, long IndexBytes, long StoreBytes, long EmptyIndexBytes, int IndexesAfterSweep, long IndexBytesAfterSweep, int Made, long MadeBytes);

    private static Measurement Measure(LifecycleContext context, OrderDataset data, bool log)
    {
        var directory = context.NewDirectory("index-disk");
        try
        {
            using var store = DocumentStore.Open(Path.Combine(directory, "store"), new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
            var engine = new QueryEngine(store, directory);
            try
            {
                engine.OpenAsync().GetAwaiter().GetResult();

                var empty = new IndexDefinition("Empty/ByName", ["Nothing"], [new IndexFieldDefinition("Name", "Name", IndexFieldType.Keyword)]);
                engine.Indexes.PutAsync(empty).GetAwaiter().GetResult();
                Settle();
                var emptyBytes = engine.Indexes.GetSpaces()[empty.Name].TotalBytes;
                engine.Indexes.DeleteAsync(empty.Name).GetAwaiter().GetResult();

                IngestQuerySystem.PutAll(store, data);
                var parameters = new Dictionary<string, JsonElement>();
                var options = new QueryOptions { WaitForNonStale = TimeSpan.FromMinutes(5) };
                long madeBytes = 0;
                var made = 0;
                foreach (var text in Queries)
                {
                    using var query = engine.StartAsync(text, parameters, options).GetAwaiter().GetResult();

                    // Measured at once: the index it widened goes once this one has caught up.
                    var bytes = engine.Indexes.GetSpaces().TryGetValue(query.IndexName, out var space) ? space.TotalBytes : 0;
                    if (query.IndexCreated)
                    {
                        madeBytes += bytes;
                        made++;
                    }

                    if (log)
                    {
                        context.Log.WriteLine($"  {text}: index {query.IndexName}{(query.IndexCreated ? " (created)" : string.Empty)}, {Mb(bytes)}");
                    }
                }

                Settle();
                var spaces = engine.Indexes.GetSpaces();
                var indexBytes = spaces.Values.Sum(s => s.TotalBytes);
                var storeBytes = store.GetSpace().TotalBytes;
                if (log)
                {
                    foreach (var (name, space) in spaces.OrderBy(s => s.Key, StringComparer.Ordinal))
                    {
                        context.Log.WriteLine($"  {name}: data file {Mb(space.DataFileBytes)}, journals {Mb(space.JournalBytes)}, free pages {Mb(space.FreePageBytes)}");
                    }

                    context.Log.WriteLine($"  store: data file {Mb(store.GetSpace().DataFileBytes)}, journals {Mb(store.GetSpace().JournalBytes)}, {Mb(data.TotalBytes)} of JSON");
                }

                engine.AutoIndexes.SweepAsync().GetAwaiter().GetResult();
                Settle();
                var after = engine.Indexes.GetSpaces();
                return new Measurement(spaces.Count, indexBytes, storeBytes, emptyBytes, after.Count, after.Values.Sum(s => s.TotalBytes), made, madeBytes);
            }
            finally
            {
                engine.DisposeAsync().AsTask().GetAwaiter().GetResult();
                if (log)
                {
                    LogBreakdown(context, Path.Combine(directory, QueryEngine.IndexesFolder), data.Count);
                }
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Where the bytes of the indexes left at the end go, per document (see IndexPageBreakdown).</summary>
    private static void LogBreakdown(LifecycleContext context, string indexes, int documents)
    {
        foreach (var index in Directory.EnumerateDirectories(indexes))
        {
            using var env = StorageEnvironment.Open(index);
            context.Log.WriteLine($"  {Path.GetFileName(index)}: {Indexing.IndexPageBreakdown.Describe(env, documents)}");
        }
    }

    /// <summary>Compacts a store with half its orders deleted; prints its bytes before and after and how long it took.</summary>
    private static void Compaction(LifecycleContext context)
    {
        var count = context.Quick ? 20_000 : 200_000;
        var data = OrderDataset.Generate(count, 0, context.Seed + 2);
        var directory = context.NewDirectory("compact");
        try
        {
            var storeDirectory = Path.Combine(directory, "store");
            using (var store = DocumentStore.Open(storeDirectory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } }))
            {
                IngestQuerySystem.PutAll(store, data);
                var deletes = new WriteBatch();
                for (var i = 0; i < data.Count; i += 2)
                {
                    deletes.Delete(data.Ids[i]);
                }

                store.WriteAsync(deletes).GetAwaiter().GetResult();
            }

            var warmUp = StorageEnvironment.Compact(storeDirectory); // the JIT's turn; this one already frees the space
            var started = Stopwatch.GetTimestamp();
            var again = StorageEnvironment.Compact(storeDirectory);
            context.Log.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"[{System}] compaction of a store of {count:N0} orders with half deleted: {Mb(warmUp.BytesBefore)} -> {Mb(warmUp.BytesAfter)} ({Mb(warmUp.BytesFreed)} freed) in {warmUp.Elapsed.TotalMilliseconds:N0} ms; compacting it again: {Stopwatch.GetElapsedTime(started).TotalMilliseconds:N0} ms, {Mb(again.BytesFreed)} freed"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Lets the background flushers write what the indexes committed into their data files (one interval each).</summary>
    private static void Settle() => Thread.Sleep(TimeSpan.FromSeconds(2.5));

    private static string Mb(long bytes) => string.Create(CultureInfo.InvariantCulture, $"{bytes / (1024.0 * 1024):N2} MiB");
}
