using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Indexing;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Queries;

/// <summary><c>queries [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c></summary>
internal static class QueriesCommand
{
    public const string Usage =
        "queries [--quick] [--json PATH] [--dir DIR] [--systems ingest,sqlite,lucene] [--workloads NAME,...] [--seed N]";

    public const string Ingest = "ingest";
    public const string Sqlite = "sqlite";
    public const string Lucene = "lucene";

    public static IReadOnlyList<string> Systems { get; } = [Ingest, Sqlite, Lucene];

    public static IReadOnlyList<int> ThreadCounts { get; } = [1, 2];

    public static int Run(string[] args)
    {
        if (!BenchmarkArguments.TryParse(args, IndexingCommand.DefaultSeed, [.. Systems], [.. QueryWorkload.All.Select(w => w.Name), GrafanaTimeseriesWorkload.Name], out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var systems = Systems.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s)).ToList();
        var workloads = QueryWorkload.All.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w.Name)).ToList();
        var documents = options.Quick ? 20_000 : 1_000_000;
        var duration = options.Quick ? TimeSpan.FromMilliseconds(300) : TimeSpan.FromSeconds(3);
        var minQueries = options.Quick ? 5 : 30;

        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        var generation = Stopwatch.StartNew();
        var data = OrderDataset.Generate(documents, 0, options.Seed);
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"sizes: {(options.Quick ? "quick" : "full")}, seed {options.Seed}: {data.Count:N0} orders (the indexing benchmark's), generated in {generation.Elapsed.TotalSeconds:N1} s; {duration.TotalSeconds:N1} s per cell, at least {minQueries} queries"));
        Console.WriteLine();

        var total = Stopwatch.StartNew();
        var results = new List<QueryMeasurement>();
        foreach (var name in workloads.Count == 0 ? [] : systems)
        {
            var directory = Path.Combine(options.BaseDirectory, $"ingest-bench-queries-{name}-{Guid.NewGuid():N}");
            Directory.CreateDirectory(directory);
            try
            {
                using var system = Create(name, directory);
                var load = Stopwatch.StartNew();
                system.Load(data);
                Console.WriteLine($"[{name}] {system.Description}; loaded in {load.Elapsed.TotalSeconds:N1} s");
                foreach (var workload in workloads)
                {
                    foreach (var threads in ThreadCounts)
                    {
                        results.Add(MeasureOne(system, workload, threads, duration, minQueries));
                    }
                }
            }
#pragma warning disable CA1031 // One failing system is reported and the run goes on with the next.
            catch (Exception e)
#pragma warning restore CA1031
            {
                Console.WriteLine($"[{name}] FAILED: {e}");
                results.AddRange(workloads.SelectMany(w => ThreadCounts.Select(t => new QueryMeasurement(w.Name, name, t, 0, 0, 0, 0, e.Message))));
            }
            finally
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        if (systems.Contains(Ingest) && (options.Workloads.Count == 0 || options.Workloads.Contains(GrafanaTimeseriesWorkload.Name)))
        {
            results.Add(MeasureGrafana(data, options.BaseDirectory, duration, minQueries));
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        QueriesReport.WriteTable(workloads, results);
        if (options.JsonPath is { } path)
        {
            QueriesReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Error != null) ? 1 : 0;
    }

    private static QueryMeasurement MeasureOne(IQuerySystem system, QueryWorkload workload, int threads, TimeSpan duration, int minQueries)
    {
        try
        {
            var measured = QueryTimer.Measure(system, workload, threads, duration, minQueries);
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"[{system.Name}] {workload.Name,-15} {threads} thread(s): median {measured.MedianMs,9:N3} ms, p99 {measured.P99Ms,9:N3} ms, {measured.QueriesPerSec,10:N0} queries/s ({measured.Queries:N0} queries)"));
            return measured;
        }
#pragma warning disable CA1031 // A failing workload is reported in the table; the others still run.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"[{system.Name}] {workload.Name} FAILED: {e}");
            return new QueryMeasurement(workload.Name, system.Name, threads, 0, 0, 0, 0, e.Message);
        }
    }

    private static QueryMeasurement MeasureGrafana(OrderDataset data, string baseDirectory, TimeSpan duration, int minRefreshes)
    {
        var directory = Path.Combine(baseDirectory, $"ingest-bench-grafana-{Guid.NewGuid():N}");
        try
        {
            return GrafanaTimeseriesWorkload.Run(data, directory, duration, minRefreshes);
        }
#pragma warning disable CA1031 // A failing workload is reported in the table; the others still ran.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"[{Ingest}] {GrafanaTimeseriesWorkload.Name} FAILED: {e}");
            return new QueryMeasurement(GrafanaTimeseriesWorkload.Name, Ingest, 6, 0, 0, 0, 0, e.Message);
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    private static IQuerySystem Create(string name, string directory) => name switch
    {
        Ingest => new IngestQuerySystem(directory),
        Sqlite => new SqliteQuerySystem(directory),
        _ => new LuceneQuerySystem(directory),
    };
}
