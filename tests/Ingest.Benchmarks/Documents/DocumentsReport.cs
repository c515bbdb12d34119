using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Ingest.Benchmarks.Storage.Workloads;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Documents;

/// <summary>The documents table (a row per workload, a column per system, Ingest/SQLite and the target) and its JSON, in the storage benchmark's shape.</summary>
internal static class DocumentsReport
{
    public static void WriteTable(IReadOnlyList<DocumentWorkload> workloads, IReadOnlyList<DocumentResult> results)
    {
        var console = ReportFormat.Console(160);

        var systems = DocumentSystems.All.Select(s => s.Name).ToList();
        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn("unit");
        foreach (var system in systems)
        {
            table.AddColumn(new TableColumn(system).RightAligned());
        }

        table.AddColumn(new TableColumn("ingest/sqlite").RightAligned());
        table.AddColumn("target");
        foreach (var workload in workloads)
        {
            var row = new List<IRenderable> { new Text(workload.Name), new Text(workload.Unit) };
            row.AddRange(systems.Select(system => new Text(Cell(Find(results, workload, system)))));
            row.Add(new Text(ReportFormat.Ratio(Find(results, workload, "ingest"), Find(results, workload, "sqlite"))));
            row.Add(new Text(workload.Target));
            table.AddRow(row);
        }

        console.Write(table);
        console.WriteLine("put-batched cells add MB/s of JSON; gets use random casings of existing ids, 1,000 per read snapshot.");
        foreach (var failed in results.Where(r => r.Outcome is WorkloadFailed))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload.Name}: {((WorkloadFailed)failed.Outcome).Error.Message}");
        }
    }

    public static void WriteJson(string path, IEnumerable<DocumentResult> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Outcome is WorkloadMeasurement)
                .Select(r => BenchmarkJsonFile.Record(r.Workload.Name, r.System, (WorkloadMeasurement)r.Outcome)));

    public static string Describe(string system, DocumentWorkload workload, WorkloadOutcome outcome) => outcome switch
    {
        WorkloadMeasurement { OpsPerSec: { } ops } m => string.Create(
            CultureInfo.InvariantCulture,
            $"[{system}] {workload.Name,-22} {ops,14:N0} {workload.Unit,-10} {m.NsPerOp,12:N1} ns/op {m.BytesAllocatedPerOp,10:N1} B/op {m.Elapsed.TotalSeconds,8:N2} s{(m.Value is { } v ? string.Create(CultureInfo.InvariantCulture, $" {v:N1} MB/s") : string.Empty)}"),
        WorkloadFailed failed => $"[{system}] {workload.Name,-22} FAILED: {failed.Error}",
        _ => $"[{system}] {workload.Name,-22} {outcome}",
    };

    private static WorkloadOutcome? Find(IReadOnlyList<DocumentResult> results, DocumentWorkload workload, string system) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system)?.Outcome;

    private static string Cell(WorkloadOutcome? outcome) => outcome switch
    {
        null => "-",
        WorkloadFailed => "error",
        WorkloadMeasurement { OpsPerSec: { } ops, Value: { } mbps } => string.Create(CultureInfo.InvariantCulture, $"{ops:N0} ({mbps:N1} MB/s)"),
        WorkloadMeasurement { OpsPerSec: { } ops } => ops.ToString("N0", CultureInfo.InvariantCulture),
        _ => "?",
    };
}
