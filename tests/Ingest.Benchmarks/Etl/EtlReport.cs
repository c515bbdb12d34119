using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// The ETL table (a row per workload: messages/s and MB/s per system, ingest against the plain
/// producer, and for the transform rows what the transform costs) and its JSON.
/// </summary>
internal static class EtlReport
{
    public const double TargetRatio = 0.5;
    public const double MaxTransformCost = 0.30;

    public static void WriteTable(IReadOnlyList<string> workloads, IReadOnlyList<EtlResult> results)
    {
        var console = AnsiConsole.Console;
        if (Console.IsOutputRedirected)
        {
            console.Profile.Width = Math.Max(console.Profile.Width, 180);
        }

        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn(new TableColumn($"{EtlCommand.Ingest} msgs/s (MB/s)").RightAligned());
        table.AddColumn(new TableColumn($"{EtlCommand.PlainProducer} msgs/s (MB/s)").RightAligned());
        table.AddColumn(new TableColumn("ingest/plain").RightAligned());
        table.AddColumn(new TableColumn("transform cost").RightAligned());
        table.AddColumn("target");
        table.AddColumn("met?");
        foreach (var workload in workloads)
        {
            var baseWorkload = EtlCommand.BaseOf(workload);
            var ingest = Find(results, workload, EtlCommand.Ingest)?.Measurement;
            var plain = Find(results, baseWorkload, EtlCommand.PlainProducer)?.Measurement;
            var ratio = ingest is not null && plain is { MessagesPerSecond: > 0 } ? ingest.MessagesPerSecond / plain.MessagesPerSecond : (double?)null;
            double? cost = null;
            if (workload != baseWorkload && ingest is not null && Find(results, baseWorkload, EtlCommand.Ingest)?.Measurement is { MessagesPerSecond: > 0 } untransformed)
            {
                cost = 1 - (ingest.MessagesPerSecond / untransformed.MessagesPerSecond);
            }

            var met = ratio is { } r && r >= TargetRatio && (workload == baseWorkload || cost is { } c && c <= MaxTransformCost);
            table.AddRow(
                workload,
                Cell(Find(results, workload, EtlCommand.Ingest)),
                Cell(Find(results, baseWorkload, EtlCommand.PlainProducer)),
                ratio is { } x ? string.Create(CultureInfo.InvariantCulture, $"{x:0.00}x") : "-",
                cost is { } y ? string.Create(CultureInfo.InvariantCulture, $"{y:P0}") : "-",
                workload == baseWorkload
                    ? string.Create(CultureInfo.InvariantCulture, $">= {TargetRatio:0.0}x plain")
                    : string.Create(CultureInfo.InvariantCulture, $">= {TargetRatio:0.0}x plain, cost <= {MaxTransformCost:P0}"),
                ratio is null ? "-" : met ? "yes" : "no");
        }

        console.Write(table);
        console.WriteLine("rates run from the task's start until its recorded progress covers the whole store (ingest), or from the first send to the last acknowledgement (plain-producer);");
        console.WriteLine("MB/s of the stored documents' JSON; the -transform rows are compared with their workload's plain producer, and their cost with the same workload untransformed.");
        if (Find(results, EtlCommand.EtlKafka, KafkaProducerPerfTest.System)?.Measurement is { } reference)
        {
            var plain = Find(results, EtlCommand.EtlKafka, EtlCommand.PlainProducer)?.Measurement;
            var ingest = Find(results, EtlCommand.EtlKafka, EtlCommand.Ingest)?.Measurement;
            console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"reference: {KafkaProducerPerfTest.System}.sh {reference.MessagesPerSecond:N0} msgs/s; plain/perf-test {Ratio(plain, reference)}, ingest/perf-test {Ratio(ingest, reference)}"));
        }

        console.WriteLine($"load at the end: {File.ReadAllText("/proc/loadavg").Trim()} (1/5/15 min)");
        foreach (var failed in results.Where(r => r.Error is not null))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload}: {failed.Error!.Message}");
        }
    }

    public static void WriteJson(string path, IEnumerable<EtlResult> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Measurement is not null)
                .Select(r => new BenchmarkRecord(
                    r.Workload,
                    r.System,
                    Math.Round(r.Measurement!.MessagesPerSecond, 1),
                    Math.Round(r.Measurement.Elapsed.TotalSeconds * 1e9 / r.Measurement.Messages, 2),
                    BytesAllocatedPerOp: null,
                    Value: Math.Round(r.Measurement.MegabytesPerSecond, 4))));

    public static string Describe(EtlResult result)
    {
        var label = $"[{result.System}] {result.Workload,-22}";
        return result.Measurement is { } m
            ? string.Create(
                CultureInfo.InvariantCulture,
                $"{label} {m.Messages,10:N0} msgs {m.MessagesPerSecond,10:N0} msgs/s {m.MegabytesPerSecond,7:N1} MB/s {m.Elapsed.TotalSeconds,7:N2} s{(m.CpuMicrosecondsPerMessage is { } cpu ? $" {cpu,6:N1} us cpu/msg" : "")}")
            : $"{label} FAILED: {result.Error}";
    }

    private static string Ratio(EtlMeasurement? measurement, EtlMeasurement reference) =>
        measurement is null ? "-" : string.Create(CultureInfo.InvariantCulture, $"{measurement.MessagesPerSecond / reference.MessagesPerSecond:0.00}x");

    private static EtlResult? Find(IReadOnlyList<EtlResult> results, string workload, string system) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system);

    private static string Cell(EtlResult? result) => result switch
    {
        null => "-",
        { Measurement: { } m } => string.Create(CultureInfo.InvariantCulture, $"{m.MessagesPerSecond:N0} ({m.MegabytesPerSecond:N1})"),
        _ => "error",
    };
}
