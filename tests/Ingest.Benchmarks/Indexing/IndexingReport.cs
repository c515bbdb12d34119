using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Ingest.Benchmarks.Storage.Workloads;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The indexing table (a row per workload, a column per system, Ingest's ratio to Lucene and SQLite, the target),
/// the ratios the targets are about, the load average, and the JSON in the other benchmarks' shape.
/// </summary>
internal static class IndexingReport
{
    public static void WriteTable(IReadOnlyList<IndexingWorkload> workloads, IReadOnlyList<IndexingResult> results)
    {
        var console = ReportFormat.Console(160);

        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn("unit");
        foreach (var system in IndexingCommand.Systems)
        {
            table.AddColumn(new TableColumn(system).RightAligned());
        }

        table.AddColumn(new TableColumn("ingest/lucene").RightAligned());
        table.AddColumn(new TableColumn("ingest/sqlite").RightAligned());
        table.AddColumn("target");
        foreach (var workload in workloads)
        {
            var row = new List<IRenderable> { new Text(workload.Name), new Text(workload.Unit) };
            row.AddRange(IndexingCommand.Systems.Select(system => new Text(Cell(workload.Name, Find(results, workload.Name, system)))));
            var ingest = Find(results, workload.Name, IndexingCommand.Ingest);
            row.Add(new Text(ReportFormat.Ratio(ingest, Find(results, workload.Name, IndexingCommand.Lucene))));
            row.Add(new Text(ReportFormat.Ratio(ingest, Find(results, workload.Name, IndexingCommand.Sqlite))));
            row.Add(new Text(workload.Target));
            table.AddRow(row);
        }

        console.Write(table);
        console.WriteLine("index-build cells add index bytes per document (live pages for ingest, files for lucene, pages for sqlite); rebuild cells add batches closed.");
        console.WriteLine($"unbounded vs capped rebuild:        {ReportFormat.Ratio(Ingest(results, IndexingWorkload.RebuildUnbounded), Ingest(results, IndexingWorkload.RebuildCapped))} (target >= 2x)");
        console.WriteLine($"churn, sorted vs one-by-one:        {ReportFormat.Ratio(Ingest(results, IndexingWorkload.Churn), Ingest(results, IndexingWorkload.ChurnOneByOne))} (target >= 5x)");
        console.WriteLine($"index-build, ingest vs lucene:      {ReportFormat.Ratio(Ingest(results, IndexingWorkload.Build), Find(results, IndexingWorkload.Build, IndexingCommand.Lucene))} (target >= 3x); vs sqlite: {ReportFormat.Ratio(Ingest(results, IndexingWorkload.Build), Find(results, IndexingWorkload.Build, IndexingCommand.Sqlite))}");
        console.WriteLine($"load:    {MachineInfo.Describe(Path.GetTempPath()).LoadAverage} (1/5/15 min at the end of the run; the cores may be shared)");
        foreach (var failed in results.Where(r => r.Outcome is WorkloadFailed))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload}: {((WorkloadFailed)failed.Outcome).Error.Message}");
        }
    }

    public static void WriteJson(string path, IEnumerable<IndexingResult> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Outcome is WorkloadMeasurement)
                .Select(r => BenchmarkJsonFile.Record(r.Workload, r.System, (WorkloadMeasurement)r.Outcome)));

    public static string Describe(string system, string workload, WorkloadMeasurement m, string detail) => string.Create(
        CultureInfo.InvariantCulture,
        $"[{system}] {workload,-30} {m.OpsPerSec,12:N0}/s {m.NsPerOp,12:N1} ns/op {m.BytesAllocatedPerOp,10:N1} B/op {m.Elapsed.TotalSeconds,8:N2} s{(m.Value is { } v ? string.Create(CultureInfo.InvariantCulture, $" value {v:N1}") : string.Empty)} {detail}");

    private static WorkloadOutcome? Find(IReadOnlyList<IndexingResult> results, string workload, string system) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system)?.Outcome;

    private static WorkloadOutcome? Ingest(IReadOnlyList<IndexingResult> results, string workload) => Find(results, workload, IndexingCommand.Ingest);

    private static string Cell(string workload, WorkloadOutcome? outcome) => outcome switch
    {
        null => "-",
        WorkloadFailed => "error",
        WorkloadMeasurement { OpsPerSec: { } ops, Value: { } bytes } when workload == IndexingWorkload.Build =>
            string.Create(CultureInfo.InvariantCulture, $"{ops:N0} ({bytes:N0} B/doc)"),
        WorkloadMeasurement { OpsPerSec: { } ops, Value: { } batches } =>
            string.Create(CultureInfo.InvariantCulture, $"{ops:N0} ({batches:N0} batches)"),
        WorkloadMeasurement { OpsPerSec: { } ops } => ops.ToString("N0", CultureInfo.InvariantCulture),
        _ => "?",
    };
}
