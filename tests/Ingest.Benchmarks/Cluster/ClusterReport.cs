using System.Globalization;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Cluster;

/// <summary>The cluster benchmark's table, its ratios against the issue's targets, and its JSON records.</summary>
internal static class ClusterReport
{
    public static void WriteTable(IReadOnlyList<ClusterRow> rows, IReadOnlyList<string> errors, TextWriter console)
    {
        console.WriteLine($"{"workload",-18} {"system",-10} {"ops/s",12} {"p50 ms",9} {"p99 ms",9} {"CPU us/doc/node",16}  note");
        foreach (var row in rows)
        {
            console.WriteLine(
                $"{row.Workload,-18} {row.System,-10} {Number(row.OpsPerSec, "N0"),12} {Number(row.P50Ms, "N1"),9} {Number(row.P99Ms, "N1"),9} {Number(row.CpuUsPerDocPerNode, "N1"),16}  {row.Note}");
        }

        console.WriteLine();
        foreach (var workload in (string[])[ClusterCommand.HttpWrite, ClusterCommand.KafkaIngest])
        {
            var single = rows.FirstOrDefault(r => r.Workload == workload && r.System == ClusterCommand.Single);
            var cluster = rows.FirstOrDefault(r => r.Workload == workload && r.System == ClusterCommand.ClusterSystem);
            if (single?.OpsPerSec is > 0 && cluster?.OpsPerSec is { } clustered)
            {
                var ratio = clustered / single.OpsPerSec.Value;
                console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{workload}: cluster {ratio:N2}x single (target >= 0.5x): {(ratio >= 0.5 ? "met" : "MISSED")}"));
            }
        }

        if (rows.FirstOrDefault(r => r.Workload == ClusterCommand.EtlFailover) is { P99Ms: { } p99 } failover)
        {
            console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ClusterCommand.EtlFailover}: p99 {p99 / 1000:N1} s ({failover.Note}; target < session timeout + 5 s)"));
        }

        foreach (var error in errors)
        {
            console.WriteLine($"error: {error}");
        }
    }

    public static BenchmarkRecord Record(ClusterRow row) => new(
        row.Workload,
        row.System,
        row.OpsPerSec is { } ops ? Math.Round(ops, 1) : null,
        NsPerOp: row.OpsPerSec is > 0 ? Math.Round(1e9 / row.OpsPerSec.Value, 2) : null,
        BytesAllocatedPerOp: null,
        Value: row.CpuUsPerDocPerNode is { } cpu ? Math.Round(cpu, 2) : null,
        P50Ms: row.P50Ms is { } p50 ? Math.Round(p50, 3) : null,
        P99Ms: row.P99Ms is { } p99 ? Math.Round(p99, 3) : null);

    private static string Number(double? value, string format) =>
        value is { } v ? v.ToString(format, CultureInfo.InvariantCulture) : "-";
}
