using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// One size of the queries benchmark: its orders generated once, a chunk at a time, and each chunk handed to every
/// system of the pass (so 10,000,000 orders never sit in memory, and no system waits for a second generation); then
/// each system's cells timed in turn, and the Grafana refresh on a server started over Ingest's loaded data directory.
/// </summary>
/// <param name="Label">What the log calls the pass (<c>1m</c>, <c>10m</c>).</param>
/// <param name="Orders">How many orders.</param>
/// <param name="Systems">The systems (<see cref="QueriesCommand.Systems"/>) that take part.</param>
/// <param name="Workloads">The workloads timed; a system skips those it has no row for.</param>
/// <param name="Grafana">The Grafana workload's name, or null to leave it out.</param>
/// <param name="Timer">How long each cell runs, and its warm-up rounds.</param>
internal sealed record QueryPass(string Label, int Orders, IReadOnlyList<string> Systems, IReadOnlyList<QueryWorkload> Workloads, string? Grafana, QueryTimer Timer)
{
    /// <summary>Orders per generated chunk (about 100 MiB of JSON at full size).</summary>
    public int Chunk { get; init; } = 100_000;

    public bool IsEmpty => Grafana is null && Workloads.Count == 0;

    public void Run(string baseDirectory, int seed, List<QueryMeasurement> results)
    {
        var systems = new List<(IQuerySystem System, string Directory, Stopwatch Load)>();
        try
        {
            foreach (var name in Systems)
            {
                var directory = Path.Combine(baseDirectory, $"ingest-bench-queries-{Label}-{name}-{Guid.NewGuid():N}");
                Directory.CreateDirectory(directory);
                systems.Add((Create(name, directory), directory, new Stopwatch()));
            }

            var failed = Load(systems, seed);
            foreach (var (system, directory, _) in systems)
            {
                if (failed.TryGetValue(system, out var error))
                {
                    results.AddRange(Cells(system).Select(c => new QueryMeasurement(c.Workload.Name, c.Row, c.Threads, 0, 0, 0, 0, error)));
                    continue;
                }

                MeasureSystem(system, results);
                if (system is IngestQuerySystem && Grafana is not null)
                {
                    system.Dispose(); // the server opens the same store and index
                    results.Add(MeasureGrafana(directory));
                }
            }
        }
        finally
        {
            foreach (var (system, directory, _) in systems)
            {
                system.Dispose();
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    /// <summary>Loads every system; one that fails is reported (the others go on) and returned with its error.</summary>
    private Dictionary<IQuerySystem, string> Load(List<(IQuerySystem System, string Directory, Stopwatch Load)> systems, int seed)
    {
        var failed = new Dictionary<IQuerySystem, string>();
        var generation = new Stopwatch();
        var loaded = 0;
        generation.Start();
        foreach (var data in OrderDataset.Stream(Orders, seed, Chunk))
        {
            var chunk = OrderChunk.Parse(loaded, data);
            generation.Stop();
            foreach (var (system, _, load) in systems)
            {
                if (!failed.ContainsKey(system))
                {
                    load.Start();
                    Try(system, () => system.Add(chunk), failed);
                    load.Stop();
                }
            }

            loaded += data.Count;
            generation.Start();
        }

        generation.Stop();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[{Label}] {loaded:N0} orders generated and parsed in {generation.Elapsed.TotalSeconds:N1} s, {Chunk:N0} at a time"));
        foreach (var (system, _, load) in systems.Where(s => !failed.ContainsKey(s.System)))
        {
            load.Start();
            if (Try(system, system.Complete, failed))
            {
                load.Stop();
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[{system.Name}] {system.Description}; loaded in {load.Elapsed.TotalSeconds:N1} s"));
            }
        }

        return failed;
    }

    private static bool Try(IQuerySystem system, Action load, Dictionary<IQuerySystem, string> failed)
    {
        try
        {
            load();
            return true;
        }
#pragma warning disable CA1031 // One failing system is reported and the run goes on with the others.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"[{system.Name}] FAILED to load: {e}");
            failed[system] = e.Message;
            return false;
        }
    }

    /// <summary>The cells a system measures in this pass: each workload, each of its rows, on 1 and 2 threads (map-reduce: 1).</summary>
    public IEnumerable<(QueryWorkload Workload, string Row, int Threads)> Cells(IQuerySystem system)
    {
        ArgumentNullException.ThrowIfNull(system);
        return
            from workload in Workloads
            from row in system.Rows(workload)
            from threads in workload.MapReduce ? QueriesCommand.MapReduceThreadCounts : QueriesCommand.ThreadCounts
            select (workload, row, threads);
    }

    /// <summary>
    /// A system of the pass, empty, in <paramref name="directory"/>; the baselines keep their full-text parts only where
    /// the search shape runs (the 1,000,000-order pass), and only there does Ingest time a map index beside each
    /// map-reduce index (at 10,000,000 orders three more builds would add minutes for the same per-order figure).
    /// </summary>
    public IQuerySystem Create(string name, string directory)
    {
        var shapes = Workloads.Any(w => !w.MapReduce);
        return name switch
        {
            QueriesCommand.Ingest => new IngestQuerySystem(directory, compareMapBuilds: shapes),
            QueriesCommand.Sqlite => new SqliteQuerySystem(directory, fullText: shapes),
            QueriesCommand.DuckDb => new DuckDbQuerySystem(directory, productNames: shapes),
            _ => new LuceneQuerySystem(directory),
        };
    }

    private void MeasureSystem(IQuerySystem system, List<QueryMeasurement> results)
    {
        foreach (var (workload, row, threads) in Cells(system))
        {
            results.Add(MeasureOne(system, workload, row, threads));
        }
    }

    private QueryMeasurement MeasureOne(IQuerySystem system, QueryWorkload workload, string row, int threads)
    {
        try
        {
            var measured = Timer.Measure(system, workload, row, threads);
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"[{row}] {workload.Name,-23} {threads} thread(s): median {measured.MedianMs,9:N3} ms, p99 {measured.P99Ms,9:N3} ms, {measured.QueriesPerSec,10:N0} queries/s ({measured.Queries:N0} queries; {measured.Warmup?.Describe()})"));
            return measured;
        }
#pragma warning disable CA1031 // A failing workload is reported in the table; the others still run.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"[{row}] {workload.Name} FAILED: {e}");
            return new QueryMeasurement(workload.Name, row, threads, 0, 0, 0, 0, e.Message);
        }
    }

    private QueryMeasurement MeasureGrafana(string dataDirectory)
    {
        try
        {
            return GrafanaTimeseriesWorkload.Run(Grafana!, dataDirectory, Timer);
        }
#pragma warning disable CA1031 // A failing workload is reported in the table; the others still ran.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"[{QueriesCommand.Ingest}] {Grafana} FAILED: {e}");
            return new QueryMeasurement(Grafana!, QueriesCommand.Ingest, GrafanaTimeseriesWorkload.Panels.Length, 0, 0, 0, 0, e.Message);
        }
    }
}
