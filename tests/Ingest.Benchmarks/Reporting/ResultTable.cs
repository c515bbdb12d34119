using System.Globalization;
using Ingest.Benchmarks.Storage.Workloads;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Reporting;

/// <summary>
/// The storage table: a row per workload, ops/s per system, the ratio of Ingest to LMDB and the
/// issue's target. "-" means the system did not run, "n/a" that it cannot run that workload.
/// </summary>
internal static class ResultTable
{
    public static void Write(IReadOnlyList<StorageWorkload> workloads, IReadOnlyList<string> systems, IReadOnlyList<WorkloadResult> results)
    {
        ArgumentNullException.ThrowIfNull(workloads);
        ArgumentNullException.ThrowIfNull(systems);
        ArgumentNullException.ThrowIfNull(results);

        var console = ReportFormat.Console(180);

        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn("unit");
        foreach (var system in systems)
        {
            table.AddColumn(new TableColumn(system).RightAligned());
        }

        table.AddColumn(new TableColumn("ingest/lmdb").RightAligned());
        table.AddColumn("target");

        foreach (var workload in workloads)
        {
            var row = new List<IRenderable> { new Text(workload.Name), new Text(workload.Unit) };
            foreach (var system in systems)
            {
                row.Add(new Text(Cell(workload, Find(results, workload, system))));
            }

            row.Add(new Text(ReportFormat.Ratio(Find(results, workload, "ingest"), Find(results, workload, "lmdb"))));
            row.Add(new Text(workload.Target));
            table.AddRow(row);
        }

        console.Write(table);
        console.WriteLine("disk = append 4 KiB + fdatasync per op on the same file system; read-txn-open-close cells add (ns per open+close, bytes allocated).");
        foreach (var failed in results.Where(r => r.Outcome is WorkloadFailed))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload.Name}: {((WorkloadFailed)failed.Outcome).Error.Message}");
        }
    }

    private static WorkloadOutcome? Find(IReadOnlyList<WorkloadResult> results, StorageWorkload workload, string system) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system)?.Outcome;

    private static string Cell(StorageWorkload workload, WorkloadOutcome? outcome) => outcome switch
    {
        null => "-",
        WorkloadNotApplicable => "n/a",
        WorkloadFailed => "error",
        WorkloadMeasurement { OpsPerSec: { } ops } m when workload.ShowsCostPerOp =>
            string.Create(CultureInfo.InvariantCulture, $"{ops:N0} ({m.NsPerOp:N0} ns, {m.BytesAllocatedPerOp:N0} B)"),
        WorkloadMeasurement { OpsPerSec: { } ops } => ops.ToString("N0", CultureInfo.InvariantCulture),
        WorkloadMeasurement { Value: { } value } => value.ToString("N2", CultureInfo.InvariantCulture),
        _ => "?",
    };
}
