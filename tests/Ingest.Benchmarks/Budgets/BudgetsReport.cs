using System.Globalization;
using System.Text.Json;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;

namespace Ingest.Benchmarks.Budgets;

/// <summary>The budgets table and its JSON: a row per path, what it allocated, its budget and the verdict.</summary>
internal static class BudgetsReport
{
    public static void WriteTable(IReadOnlyList<AllocationMeasurement> measured, IReadOnlyList<BudgetVerdict>? verdicts)
    {
        ArgumentNullException.ThrowIfNull(measured);
        var rows = verdicts ?? measured.Select(m => new BudgetVerdict(m.Path, m, null, BudgetStatus.Unbudgeted)).ToList();
        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("path");
        table.AddColumn("per");
        table.AddColumn("counter");
        table.AddColumn(new TableColumn("measured B/op").RightAligned());
        table.AddColumn(new TableColumn("highest round").RightAligned());
        table.AddColumn(new TableColumn("budget B/op").RightAligned());
        table.AddColumn("verdict");
        table.AddColumn(new TableColumn("measured + margin").RightAligned());
        foreach (var row in rows)
        {
            table.AddRow(
                new Text(row.Path),
                new Text(row.Measured?.Operation ?? "-"),
                new Text(row.Measured?.Counter ?? "-"),
                new Text(row.Measured is { } m ? Bytes(m.BytesPerOp) : "-"),
                new Text(row.Measured is { } h ? Bytes(h.HighestBytesPerOp) : "-"),
                new Text(row.Budget is { } b ? Bytes(b.BytesPerOp) : "-"),
                new Text(verdicts is null ? "-" : Verdict(row.Status)),
                new Text(row.Measured is { } s ? Bytes(AllocationBudgetCheck.WithMargin(s.BytesPerOp)) : "-"));
        }

        var console = ReportFormat.Console(140);
        console.Write(table);
        console.WriteLine(
            "measured = the smallest of 5 rounds after warm-up; thread = GC.GetAllocatedBytesForCurrentThread, process = GC.GetTotalAllocatedBytes(precise). " +
            "measured + margin = what a budget set from this run would be (+5%, +8 B).");
    }

    public static void WriteJson(string path, IReadOnlyList<AllocationMeasurement> measured, IReadOnlyList<BudgetVerdict>? verdicts)
    {
        ArgumentNullException.ThrowIfNull(measured);
        using var stream = BenchmarkJsonFile.Create(path);
        using var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true });
        json.WriteStartArray();
        var rows = verdicts ?? measured.Select(m => new BudgetVerdict(m.Path, m, null, BudgetStatus.Unbudgeted)).ToList();
        foreach (var row in rows)
        {
            json.WriteStartObject();
            json.WriteString("path", row.Path);
            if (row.Measured is { } m)
            {
                json.WriteString("operation", m.Operation);
                json.WriteString("counter", m.Counter);
                json.WriteNumber("bytesPerOp", Math.Round(m.BytesPerOp, 2));
                json.WriteNumber("highestRoundBytesPerOp", Math.Round(m.HighestBytesPerOp, 2));
            }

            if (row.Budget is { } b)
            {
                json.WriteNumber("budgetBytesPerOp", b.BytesPerOp);
            }

            if (verdicts is not null)
            {
                json.WriteString("verdict", Verdict(row.Status));
            }

            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    private static string Bytes(double value) => value.ToString("N1", CultureInfo.InvariantCulture);

    private static string Verdict(BudgetStatus status) => status switch
    {
        BudgetStatus.Ok => "ok",
        BudgetStatus.Over => "OVER",
        BudgetStatus.Missing => "MISSING (budgeted, not measured)",
        BudgetStatus.Unbudgeted => "NO BUDGET (add one)",
        _ => status.ToString(),
    };
}
