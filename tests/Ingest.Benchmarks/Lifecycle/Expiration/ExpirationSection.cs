using System.Diagnostics;
using System.Globalization;
using Ingest.Documents;

namespace Ingest.Benchmarks.Lifecycle.Expiration;

/// <summary>
/// Expiration: <c>expire-half</c> deletes the due half of the orders (two indexes over them) by the expiration task's
/// batches, by one-by-one HTTP deletes against a real server, and by SQLite's <c>DELETE ... WHERE</c>; deletes/s
/// count until the indexes have processed the deletes. <c>ingest-while-expiring</c> writes new orders in batches of
/// 1,000 from two writers while the task deletes (<c>ingest</c>) and while it does not (<c>ingest-idle</c>).
/// Every cell runs once untimed on a smaller set first.
/// </summary>
internal sealed class ExpirationSection : ILifecycleSection
{
    public const string ExpireHalf = "expire-half";
    public const string IngestWhileExpiring = "ingest-while-expiring";
    public const string Ingest = "ingest";
    public const string HttpDeletes = "ingest-http-deletes";
    public const string Sqlite = "sqlite";
    public const string IngestIdle = "ingest-idle";

    public string Name => "expiration";

    public IReadOnlyList<string> Workloads { get; } = [ExpireHalf, IngestWhileExpiring];

    public IReadOnlyList<string> Systems { get; } = [Ingest, HttpDeletes, Sqlite, IngestIdle];

    public LifecycleSectionResult Run(LifecycleContext context)
    {
        var documents = context.Quick ? 20_000 : 1_000_000;
        var warmUp = context.Quick ? 4_000 : 40_000;
        var httpSample = context.Quick ? 2_000 : 20_000;
        var rows = new List<LifecycleRow>();
        var errors = new List<string>();

        void Cell(string workload, string system, Func<int, bool, LifecycleRow> run, int size)
        {
            if (!context.Runs(workload, system))
            {
                return;
            }

            try
            {
                run(warmUp, false);
                context.Log.WriteLine($"  {workload} / {system}: warmed up on {warmUp:N0} documents");
                var row = run(size, true);
                context.Log.WriteLine($"  {workload} / {system}: {row.OpsPerSec:N0} {row.Unit} {row.Note}");
                rows.Add(row);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                errors.Add($"{workload} / {system}: {e.GetType().Name}: {e.Message}");
            }
        }

        Cell(ExpireHalf, Ingest, (n, _) => ExpireHalfCells.ByTask(context, Orders(context, n)), documents);
        Cell(ExpireHalf, HttpDeletes, (n, timed) => ExpireHalfCells.ByHttp(context, Orders(context, n), timed ? httpSample : Math.Min(n / 2, 500)), documents);
        Cell(ExpireHalf, Sqlite, (n, _) => ExpireHalfCells.BySqlite(context, Orders(context, n)), documents);
        var preload = context.Quick ? 20_000 : 500_000;
        // 800,000 puts make a window of a few seconds: with 200,000 (under a second) the idle rate varied by a third between runs.
        var ingested = context.Quick ? 20_000 : 800_000;
        Cell(IngestWhileExpiring, Ingest, (n, timed) => IngestDuring(context, timed ? preload : n, timed ? ingested : n / 2, expiring: true), preload);
        Cell(IngestWhileExpiring, IngestIdle, (n, timed) => IngestDuring(context, timed ? preload : n, timed ? ingested : n / 2, expiring: false), preload);

        var checks = new List<LifecycleCheck>();
        if (Rate(rows, IngestWhileExpiring, Ingest) is { } busy && Rate(rows, IngestWhileExpiring, IngestIdle) is { } idle && idle > 0)
        {
            checks.Add(new LifecycleCheck(IngestWhileExpiring, "docs/s ingested while expiring / idle", busy / idle, 0.8));
        }

        return new LifecycleSectionResult(rows, checks, errors);
    }

    private static ExpiringOrders Orders(LifecycleContext context, int count) => ExpiringOrders.Generate(count, context.Seed, "orders");

    private static double? Rate(List<LifecycleRow> rows, string workload, string system) =>
        rows.FirstOrDefault(r => r.Workload == workload && r.System == system)?.OpsPerSec;

    /// <summary>
    /// Loads <paramref name="preload"/> orders (half due), then writes <paramref name="ingested"/> new ones from two
    /// writers in batches of 1,000, with the task deleting the due half meanwhile or not.
    /// </summary>
    private static LifecycleRow IngestDuring(LifecycleContext context, int preload, int ingested, bool expiring)
    {
        var directory = context.NewDirectory(expiring ? "ingest-while-expiring" : "ingest-idle");
        try
        {
            using var stores = ExpirationStores.Open(directory, Orders(context, preload));
            var fresh = ExpiringOrders.Generate(ingested, context.Seed + 1, "new", dueEveryOther: false);
            var expirationTime = TimeSpan.Zero;
            Task? expiration = null;
            var clock = Stopwatch.StartNew();
            if (expiring)
            {
                expiration = Task.Run(() =>
                {
                    stores.ExpireAll();
                    expirationTime = clock.Elapsed;
                });
            }

            var writers = new Task[2];
            for (var w = 0; w < writers.Length; w++)
            {
                var writer = w;
                writers[w] = Task.Run(() =>
                {
                    var batch = new WriteBatch();
                    for (var i = writer * 1_000; i < fresh.Count; i += writers.Length * 1_000)
                    {
                        batch.Clear();
                        for (var j = i; j < Math.Min(i + 1_000, fresh.Count); j++)
                        {
                            batch.Put(fresh.Ids[j], ExpiringOrders.Collection, fresh.Bodies[j]);
                        }

                        stores.Store.Write(batch);
                    }
                });
            }

            Task.WaitAll(writers);
            var ingestTime = clock.Elapsed;
            expiration?.GetAwaiter().GetResult();
            var note = expiring
                ? string.Create(CultureInfo.InvariantCulture, $"{ingested:N0} puts (2 writers, batches of 1,000, two indexes) while the task deleted {preload / 2:N0} due of {preload:N0}; the task ran {expirationTime.TotalSeconds:N1} s of the {ingestTime.TotalSeconds:N1} s ingest window")
                : string.Create(CultureInfo.InvariantCulture, $"{ingested:N0} puts (2 writers, batches of 1,000, two indexes) beside {preload:N0} stored orders, no expiration");
            return new LifecycleRow(IngestWhileExpiring, expiring ? Ingest : IngestIdle, ingested / ingestTime.TotalSeconds, null, "docs/s", note);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
