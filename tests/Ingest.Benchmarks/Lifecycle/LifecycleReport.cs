using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;

namespace Ingest.Benchmarks.Lifecycle;

/// <summary>The lifecycle table (a row per measured cell), the targets checked against it, and its JSON records.</summary>
internal static class LifecycleReport
{
    public static void WriteTable(IReadOnlyList<(ILifecycleSection Section, LifecycleSectionResult Result)> results)
    {
        var console = ReportFormat.Console(180);
        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("section");
        table.AddColumn("workload");
        table.AddColumn("system");
        table.AddColumn(new TableColumn("ops/s").RightAligned());
        table.AddColumn(new TableColumn("value").RightAligned());
        table.AddColumn("unit");
        table.AddColumn("note");
        foreach (var (section, result) in results)
        {
            foreach (var row in result.Rows)
            {
                table.AddRow(
                    Markup.Escape(section.Name),
                    Markup.Escape(row.Workload),
                    Markup.Escape(row.System),
                    Number(row.OpsPerSec, "N0"),
                    Number(row.Value, "N2"),
                    Markup.Escape(row.Unit),
                    Markup.Escape(row.Note ?? string.Empty));
            }
        }

        console.Write(table);

        var targets = new Table().Border(TableBorder.Rounded);
        targets.AddColumn("workload");
        targets.AddColumn("ratio");
        targets.AddColumn(new TableColumn("measured").RightAligned());
        targets.AddColumn("target");
        targets.AddColumn("met");
        foreach (var check in results.SelectMany(r => r.Result.Checks))
        {
            targets.AddRow(
                Markup.Escape(check.Workload),
                Markup.Escape(check.Description),
                check.Ratio.ToString("0.00", CultureInfo.InvariantCulture),
                string.Create(CultureInfo.InvariantCulture, $"{(check.AtMost ? "<=" : ">=")} {check.Target:0.0#}"),
                check.Met ? "yes" : "NO");
        }

        console.Write(targets);
        foreach (var error in results.SelectMany(r => r.Result.Errors))
        {
            console.WriteLine($"error: {error}");
        }
    }

    public static BenchmarkRecord Record(LifecycleRow row) => new(
        row.Workload,
        row.System,
        row.OpsPerSec is { } ops ? Math.Round(ops, 1) : null,
        NsPerOp: row.OpsPerSec is > 0 ? Math.Round(1e9 / row.OpsPerSec.Value, 2) : null,
        BytesAllocatedPerOp: null,
        row.Value is { } value ? Math.Round(value, 4) : null);

    private static string Number(double? value, string format) =>
        value is { } v ? v.ToString(format, CultureInfo.InvariantCulture) : "-";
}
