using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// The queries table: a row per workload and thread count, per system the median and p99 latency and queries/s, the
/// speed-ups of Ingest's median over SQLite's and Lucene's with the targets (>= 2x SQLite, >= 1x Lucene), the load.
/// </summary>
internal static class QueriesReport
{
    public static void WriteTable(IReadOnlyList<QueryWorkload> workloads, IReadOnlyList<QueryMeasurement> results)
    {
        var console = ReportFormat.Console(190);
        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn(new TableColumn("threads").RightAligned());
        foreach (var system in QueriesCommand.Systems)
        {
            table.AddColumn(new TableColumn($"{system} median / p99 ms, q/s").RightAligned());
        }

        table.AddColumn(new TableColumn("ingest/sqlite").RightAligned());
        table.AddColumn(new TableColumn("ingest/lucene").RightAligned());
        table.AddColumn("target");
        foreach (var workload in workloads)
        {
            foreach (var threads in QueriesCommand.ThreadCounts)
            {
                var row = new List<IRenderable> { new Text(workload.Name), new Text(threads.ToString(CultureInfo.InvariantCulture)) };
                row.AddRange(QueriesCommand.Systems.Select(system => new Text(Cell(Find(results, workload.Name, system, threads)))));
                var ingest = Find(results, workload.Name, QueriesCommand.Ingest, threads);
                var sqlite = Speedup(ingest, Find(results, workload.Name, QueriesCommand.Sqlite, threads));
                var lucene = Speedup(ingest, Find(results, workload.Name, QueriesCommand.Lucene, threads));
                row.Add(new Text(Ratio(sqlite, 2)));
                row.Add(new Text(Ratio(lucene, 1)));
                row.Add(new Text(">= 2x sqlite, >= 1x lucene"));
                table.AddRow(row);
            }
        }

        console.Write(table);
        console.WriteLine("ratios: the other system's median latency over Ingest's (higher is better for Ingest); '!' marks a target missed.");
        console.WriteLine($"load:    {MachineInfo.Describe(Path.GetTempPath()).LoadAverage} (1/5/15 min at the end of the run; the cores may be shared)");
        foreach (var failed in results.Where(r => r.Error != null))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload} ({failed.Threads} threads): {failed.Error}");
        }
    }

    public static void WriteJson(string path, IEnumerable<QueryMeasurement> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Error == null)
                .Select(r => new BenchmarkRecord(
                    r.Threads == 1 ? r.Workload : $"{r.Workload}-{r.Threads}-threads",
                    r.System,
                    Math.Round(r.MedianOpsPerSec, 1),
                    Math.Round(r.MedianMs * 1_000_000, 0),
                    null,
                    Math.Round(r.P99Ms, 4))));

    private static QueryMeasurement? Find(IReadOnlyList<QueryMeasurement> results, string workload, string system, int threads) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system && r.Threads == threads);

    private static double? Speedup(QueryMeasurement? ingest, QueryMeasurement? other) =>
        ingest is { Error: null, MedianMs: > 0 } && other is { Error: null, MedianMs: > 0 } ? other.MedianMs / ingest.MedianMs : null;

    private static string Ratio(double? ratio, double target) => ratio is { } r
        ? string.Create(CultureInfo.InvariantCulture, $"{r:0.00}x{(r < target ? " !" : string.Empty)}")
        : "-";

    private static string Cell(QueryMeasurement? m) => m switch
    {
        null => "-",
        { Error: not null } => "error",
        _ => string.Create(CultureInfo.InvariantCulture, $"{m.MedianMs:N3} / {m.P99Ms:N3}, {m.QueriesPerSec:N0}"),
    };
}
