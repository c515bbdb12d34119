using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Indexing;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// <c>queries [--quick] [--no-10m] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c>: two passes
/// (<see cref="QueryPass"/>), the query shapes and the map-reduce workloads over 1,000,000 orders, then the map-reduce
/// workloads over 10,000,000 (left out with <c>--no-10m</c>), each with its Grafana dashboard refresh.
/// </summary>
internal static class QueriesCommand
{
    public const string Usage =
        "queries [--quick] [--no-10m] [--json PATH] [--dir DIR] [--systems ingest,sqlite,lucene,duckdb] [--workloads NAME,...] [--seed N]";

    /// <summary>Leaves out the 10,000,000-order pass (its loads take minutes per system).</summary>
    public const string NoTenMillion = "--no-10m";

    public const string Ingest = "ingest";
    public const string Sqlite = "sqlite";
    public const string Lucene = "lucene";
    public const string DuckDb = "duckdb";

    /// <summary>Ingest's aggregation at query time (a <c>group by</c> over a map index): a row of the map-reduce workloads, measured on <see cref="IngestQuerySystem"/>.</summary>
    public const string IngestQueryTime = "ingest-query-time";

    /// <summary>The systems <c>--systems</c> selects from.</summary>
    public static IReadOnlyList<string> Systems { get; } = [Ingest, Sqlite, Lucene, DuckDb];

    /// <summary>The rows of the JSON and the table's columns, in order.</summary>
    public static IReadOnlyList<string> Rows { get; } = [Ingest, IngestQueryTime, Sqlite, Lucene, DuckDb];

    public static IReadOnlyList<int> ThreadCounts { get; } = [1, 2];

    /// <summary>The map-reduce workloads compare medians on one thread, as the targets do.</summary>
    public static IReadOnlyList<int> MapReduceThreadCounts { get; } = [1];

    public static int Run(string[] args)
    {
        var tenMillion = !args.Contains(NoTenMillion);
        if (!BenchmarkArguments.TryParse([.. args.Where(a => a != NoTenMillion)], IndexingCommand.DefaultSeed, [.. Systems], WorkloadNames, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        var passes = Passes(options, tenMillion);
        foreach (var pass in passes)
        {
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"pass {pass.Label}: {pass.Orders:N0} orders (the indexing benchmark's, seed {options.Seed}), systems {string.Join(", ", pass.Systems)}; {pass.Timer.Duration.TotalSeconds:N1} s per cell, at least {pass.Timer.MinQueries} queries, after warm-up rounds of {pass.Timer.WarmupRound.TotalMilliseconds:N0} ms until the JIT settles"));
        }

        Console.WriteLine();
        var total = Stopwatch.StartNew();
        var results = new List<QueryMeasurement>();
        foreach (var pass in passes)
        {
            pass.Run(options.BaseDirectory, options.Seed, results);
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        QueriesReport.WriteTable(QueryWorkload.All, results);
        if (options.JsonPath is { } path)
        {
            QueriesReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Error != null) ? 1 : 0;
    }

    /// <summary>Every name <c>--workloads</c> accepts.</summary>
    public static IReadOnlyList<string> WorkloadNames { get; } =
        [.. QueryWorkload.All.Select(w => w.Name), GrafanaTimeseriesWorkload.Name, GrafanaTimeseriesWorkload.TenMillionName];

    /// <summary>
    /// The passes a run makes, each with only the systems and workloads selected. Quick: 20,000 and 40,000 orders, short
    /// cells (CI's smoke run); full: 1,000,000 and 10,000,000, where a 10,000,000-order cell takes at least 10 queries
    /// (a query-time aggregation there takes seconds).
    /// </summary>
    public static IReadOnlyList<QueryPass> Passes(BenchmarkArguments options, bool tenMillion)
    {
        ArgumentNullException.ThrowIfNull(options);
        var quick = options.Quick;
        var duration = quick ? TimeSpan.FromMilliseconds(200) : TimeSpan.FromSeconds(3);
        var round = quick ? TimeSpan.FromMilliseconds(250) : TimeSpan.FromMilliseconds(500);
        bool Selected(string workload) => options.Workloads.Count == 0 || options.Workloads.Contains(workload);
        List<string> SystemsOf(IEnumerable<string> candidates) => [.. candidates.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s))];
        QueryWorkload[] WorkloadsOf(bool big) => [.. QueryWorkload.All.Where(w => w.TenMillion == big && Selected(w.Name))];

        var passes = new List<QueryPass>();
        var small = new QueryPass(
            "1m",
            quick ? 20_000 : 1_000_000,
            SystemsOf(Systems),
            WorkloadsOf(big: false),
            Selected(GrafanaTimeseriesWorkload.Name) ? GrafanaTimeseriesWorkload.Name : null,
            new QueryTimer(duration, quick ? 5 : 30, round))
        { Chunk = quick ? 10_000 : 100_000 };
        passes.Add(small);
        if (tenMillion)
        {
            passes.Add(new QueryPass(
                "10m",
                quick ? 40_000 : 10_000_000,
                SystemsOf([Ingest, Sqlite, DuckDb]),
                WorkloadsOf(big: true),
                Selected(GrafanaTimeseriesWorkload.TenMillionName) ? GrafanaTimeseriesWorkload.TenMillionName : null,
                new QueryTimer(duration, quick ? 5 : 10, round))
            { Chunk = quick ? 10_000 : 100_000 });
        }

        // A pass loads only the systems that have a row in it (Ingest too when its Grafana refresh runs).
        return
        [
            .. passes
                .Select(p => p with
                {
                    Systems = [.. p.Systems.Where(s => (s == Ingest && p.Grafana is not null) || p.Workloads.Any(w => HasRow(s, w)))],
                    Grafana = p.Systems.Contains(Ingest) ? p.Grafana : null,
                })
                .Where(p => !p.IsEmpty && p.Systems.Count > 0),
        ];
    }

    /// <summary>Whether a system measures a workload (<see cref="IQuerySystem.Rows"/> without opening one): Lucene answers the shapes only.</summary>
    private static bool HasRow(string system, QueryWorkload workload) => system != Lucene || !workload.MapReduce;
}
