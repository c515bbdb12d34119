using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// The queries table: a row per workload and thread count, per system row the median and p99 latency and queries/s,
/// the speed-ups of Ingest's median over each other's with the targets (query shapes: >= 2x SQLite, >= 1x Lucene;
/// map-reduce workloads: >= 10x Ingest's query-time aggregation, >= 2x DuckDB), the load. A map-reduce workload's
/// <c>ingest</c> row is its map-reduce index; until one is measured its ratios are '-'.
/// </summary>
internal static class QueriesReport
{
    public static void WriteTable(IReadOnlyList<QueryWorkload> workloads, IReadOnlyList<QueryMeasurement> results)
    {
        var console = ReportFormat.Console(250);
        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn(new TableColumn("threads").RightAligned());
        foreach (var system in QueriesCommand.Rows)
        {
            table.AddColumn(new TableColumn($"{system} median / p99 ms, q/s").RightAligned());
        }

        table.AddColumn(new TableColumn("ingest/query-time").RightAligned());
        table.AddColumn(new TableColumn("ingest/sqlite").RightAligned());
        table.AddColumn(new TableColumn("ingest/lucene").RightAligned());
        table.AddColumn(new TableColumn("ingest/duckdb").RightAligned());
        foreach (var workload in workloads)
        {
            foreach (var threads in workload.MapReduce ? QueriesCommand.MapReduceThreadCounts : QueriesCommand.ThreadCounts)
            {
                if (!results.Any(r => r.Workload == workload.Name && r.Threads == threads))
                {
                    continue;
                }

                var row = new List<IRenderable> { new Text(workload.Name), new Text(threads.ToString(CultureInfo.InvariantCulture)) };
                row.AddRange(QueriesCommand.Rows.Select(system => new Text(Cell(Find(results, workload.Name, system, threads)))));
                var ingest = Find(results, workload.Name, QueriesCommand.Ingest, threads);
                double? Against(string system) => Speedup(ingest, Find(results, workload.Name, system, threads));
                row.Add(new Text(workload.MapReduce ? Ratio(Against(QueriesCommand.IngestQueryTime), 10) : "-"));
                row.Add(new Text(Ratio(Against(QueriesCommand.Sqlite), workload.MapReduce ? 0 : 2)));
                row.Add(new Text(workload.MapReduce ? "-" : Ratio(Against(QueriesCommand.Lucene), 1)));
                row.Add(new Text(Ratio(Against(QueriesCommand.DuckDb), workload.MapReduce ? 2 : 0)));
                table.AddRow(row);
            }
        }

        foreach (var grafana in results.Where(r => r.Workload.StartsWith(GrafanaTimeseriesWorkload.Name, StringComparison.Ordinal)))
        {
            var row = new List<IRenderable> { new Text(grafana.Workload), new Text(grafana.Threads.ToString(CultureInfo.InvariantCulture)) };
            row.AddRange(QueriesCommand.Rows.Select(system => new Text(system == grafana.System ? Cell(grafana) : "-")));
            row.AddRange(Enumerable.Range(0, 4).Select(_ => new Text("-")));
            table.AddRow(row);
        }

        console.Write(table);
        console.WriteLine("ratios: the other system's median latency over Ingest's (higher is better for Ingest); '!' marks a target missed.");
        console.WriteLine("targets: query shapes >= 2x sqlite and >= 1x lucene; map-reduce workloads (ingest = the map-reduce index) >= 10x ingest-query-time and >= 2x duckdb;");
        console.WriteLine("         grafana rows (one six-panel refresh, the panels at once): p99 <= 20 ms at 10m orders and <= 1.5x the 1m p99.");
        console.WriteLine($"load:    {MachineInfo.Describe(Path.GetTempPath()).LoadAverage} (1/5/15 min at the end of the run; the cores may be shared)");
        foreach (var failed in results.Where(r => r.Error != null))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload} ({failed.Threads} threads): {failed.Error}");
        }
    }

    /// <summary>The JSON row's workload: the name on one thread, <c>NAME-N-threads</c> otherwise (the Grafana refresh's six panels: <c>-6-threads</c>).</summary>
    public static string RowName(QueryMeasurement measurement)
    {
        ArgumentNullException.ThrowIfNull(measurement);
        return measurement.Threads == 1 ? measurement.Workload : string.Create(CultureInfo.InvariantCulture, $"{measurement.Workload}-{measurement.Threads}-threads");
    }

    public static void WriteJson(string path, IEnumerable<QueryMeasurement> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Error == null)
                .Select(r => new BenchmarkRecord(
                    RowName(r),
                    r.System,
                    Math.Round(r.MedianOpsPerSec, 1),
                    Math.Round(r.MedianMs * 1_000_000, 0),
                    null,
                    Math.Round(r.P99Ms, 4))));

    private static QueryMeasurement? Find(IReadOnlyList<QueryMeasurement> results, string workload, string system, int threads) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system && r.Threads == threads);

    private static double? Speedup(QueryMeasurement? ingest, QueryMeasurement? other) =>
        ingest is { Error: null, MedianMs: > 0 } && other is { Error: null, MedianMs: > 0 } ? other.MedianMs / ingest.MedianMs : null;

    /// <summary>The ratio, with '!' when under a target (0: no target).</summary>
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
