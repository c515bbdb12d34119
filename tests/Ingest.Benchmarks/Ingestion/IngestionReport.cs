using System.Globalization;
using System.Text.Json;
using Ingest.Benchmarks.Reporting;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// The ingestion table (a row per workload: docs/s and MB/s per system, the ingest side's commit
/// latency and batch size, ingest/plain-consumer against the target) and its JSON, in the storage benchmark's shape.
/// </summary>
internal static class IngestionReport
{
    public const double TargetRatio = 0.5;

    /// <summary>RabbitMQ's broker limits both sides, so ingest must keep up with a well-tuned plain consumer (issue 12).</summary>
    public const double RabbitMqTargetRatio = 0.9;

    /// <summary>Ingestion under 100 concurrent heavy queries against the same run idle (issue 25).</summary>
    public const double UnderQueriesTargetRatio = 0.7;

    private static double TargetFor(string workload) => workload switch
    {
        IngestionCommand.RabbitMqIngest => RabbitMqTargetRatio,
        IngestionCommand.KafkaIngestUnderQueries => UnderQueriesTargetRatio,
        _ => TargetRatio,
    };

    public static void WriteTable(IReadOnlyList<string> workloads, IReadOnlyList<IngestionResult> results)
    {
        var console = AnsiConsole.Console;
        if (Console.IsOutputRedirected)
        {
            console.Profile.Width = Math.Max(console.Profile.Width, 180);
        }

        var table = new Table().Border(TableBorder.Rounded);
        table.AddColumn("workload");
        table.AddColumn("unit");
        table.AddColumn(new TableColumn(IngestionCommand.Ingest).RightAligned());
        table.AddColumn(new TableColumn(IngestionCommand.PlainConsumer).RightAligned());
        table.AddColumn(new TableColumn("commit p50 / p99").RightAligned());
        table.AddColumn(new TableColumn("batch p50").RightAligned());
        table.AddColumn(new TableColumn("ingest/plain-consumer").RightAligned());
        table.AddColumn("target");
        table.AddColumn("met?");
        foreach (var workload in workloads)
        {
            var ingest = Find(results, workload, IngestionCommand.Ingest);
            // Under queries, the reference is the same run without them (ingest-idle), in the plain-consumer column.
            var under = workload == IngestionCommand.KafkaIngestUnderQueries;
            var plain = Find(results, workload, under ? IngestionCommand.IngestIdle : IngestionCommand.PlainConsumer);
            var ratio = ingest?.Measurement is { } mine && plain?.Measurement is { DocumentsPerSecond: > 0 } theirs
                ? mine.DocumentsPerSecond / theirs.DocumentsPerSecond
                : (double?)null;
            var row = new List<IRenderable>
            {
                new Text(workload),
                new Text("docs/s"),
                new Text(Cell(ingest)),
                new Text(Cell(plain)),
                new Text(ingest?.Measurement is { CommitP50: { } p50, CommitP99: { } p99 } ? $"{Milliseconds(p50)} / {Milliseconds(p99)} ms" : "-"),
                new Text(ingest?.Measurement is { BatchP50: { } batch } ? batch.ToString("N0", CultureInfo.InvariantCulture) : "-"),
                new Text(ratio is { } r ? string.Create(CultureInfo.InvariantCulture, $"{r:0.00}x") : "-"),
                new Text(string.Create(CultureInfo.InvariantCulture, $">= {TargetFor(workload):0.0}x {(under ? IngestionCommand.IngestIdle : IngestionCommand.PlainConsumer)}")),
                new Text(ratio is { } met ? (met >= TargetFor(workload) ? "yes" : "no") : "-"),
            };
            table.AddRow(row);
        }

        console.Write(table);
        console.WriteLine("rates run from the first message received to the last one read (plain-consumer) or durable in the store (ingest); MB/s of JSON bodies.");
        console.WriteLine("commit and batch figures are the ingest source's BatchWriter statistics (upper bounds of power-of-two buckets).");
        if (Find(results, IngestionCommand.KafkaIngestTransform, IngestionCommand.Ingest)?.Measurement is { } scripted
            && Find(results, IngestionCommand.KafkaIngest, IngestionCommand.Ingest)?.Measurement is { DocumentsPerSecond: > 0 } unscripted)
        {
            var cost = 1 - (scripted.DocumentsPerSecond / unscripted.DocumentsPerSecond);
            console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"transform cost: {IngestionCommand.KafkaIngestTransform} runs at {scripted.DocumentsPerSecond / unscripted.DocumentsPerSecond:0.00}x {IngestionCommand.KafkaIngest} ({cost:P0} slower; target <= 30%: {(cost <= 0.30 ? "met" : "missed")})."));
        }

        if (Find(results, IngestionCommand.KafkaIngestUnderQueries, IngestionCommand.Ingest)?.Measurement is { } loaded
            && Find(results, IngestionCommand.KafkaIngestUnderQueries, IngestionCommand.IngestIdle)?.Measurement is { DocumentsPerSecond: > 0 } idle)
        {
            var ratio = loaded.DocumentsPerSecond / idle.DocumentsPerSecond;
            console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"under queries: {IngestionCommand.KafkaIngestUnderQueries} ingests at {loaded.DocumentsPerSecond:N0} docs/s with {QueryLoad.Clients} clients of heavy queries, {idle.DocumentsPerSecond:N0} idle: {ratio:0.00}x (target >= {UnderQueriesTargetRatio:0.0}x: {(ratio >= UnderQueriesTargetRatio ? "met" : "missed")})."));
        }

        foreach (var failed in results.Where(r => r.Error is not null))
        {
            console.WriteLine($"error: {failed.System} {failed.Workload}: {failed.Error!.Message}");
        }
    }

    public static void WriteJson(string path, IEnumerable<IngestionResult> results)
    {
        var records = results
            .Where(r => r.Measurement is not null)
            .Select(r =>
            {
                var m = r.Measurement!;
                return new BenchmarkRecord(
                    r.Workload,
                    r.System,
                    Math.Round(m.DocumentsPerSecond, 1),
                    Math.Round(m.Elapsed.TotalSeconds * 1e9 / m.Documents, 2),
                    BytesAllocatedPerOp: null,
                    Value: Math.Round(m.MegabytesPerSecond, 4),
                    CommitP50Ms: m.CommitP50 is { } p50 ? Math.Round(p50.TotalMilliseconds, 3) : null,
                    CommitP99Ms: m.CommitP99 is { } p99 ? Math.Round(p99.TotalMilliseconds, 3) : null,
                    BatchSizeP50: m.BatchP50);
            })
            .ToList();
        using var stream = BenchmarkJsonFile.Create(path);
        JsonSerializer.Serialize(stream, records, BenchmarkJsonContext.Default.ListBenchmarkRecord);
    }

    public static string Describe(IngestionResult result)
    {
        var label = $"[{result.System}] {result.Workload,-16}";
        if (result.Measurement is not { } m)
        {
            return $"{label} FAILED: {result.Error}";
        }

        var line = string.Create(
            CultureInfo.InvariantCulture,
            $"{label} {m.Documents,10:N0} docs {m.DocumentsPerSecond,12:N0} docs/s {m.MegabytesPerSecond,7:N1} MB/s {m.Elapsed.TotalSeconds,7:N2} s (+{m.Startup.TotalSeconds:N2} s to the first message)");
        if (m.CpuMicrosecondsPerDocument is { } cpu)
        {
            line += string.Create(CultureInfo.InvariantCulture, $", {cpu:N2} us process CPU/doc");
        }

        if (m.CommitP50 is { } p50)
        {
            line = string.Create(CultureInfo.InvariantCulture, $"{line}; {m.Batches:N0} batches in {m.StoreCommits:N0} store commits, commit p50 {Milliseconds(p50)} ms p99 {Milliseconds(m.CommitP99 ?? TimeSpan.Zero)} ms, batch p50 {m.BatchP50:N0}, {m.ClosedByDelay:N0} batches closed by the delay, {m.ProducerWaits:N0} waits for the store");
        }

        if (m.AllocatedBytes is { } allocated && m.Collections is { } gcs)
        {
            line += string.Create(
                CultureInfo.InvariantCulture, $"; {(double)allocated / Math.Max(m.Documents, 1):N0} B allocated/doc, GCs gen0/1/2 {gcs.Gen0}/{gcs.Gen1}/{gcs.Gen2}");
        }

        return m.ThreadCpu.Count == 0 ? line : line + Environment.NewLine + ThreadLine(m);
    }

    // The busiest threads, in microseconds of CPU per document and in share of the wall time (100% = one core busy throughout).
    private static string ThreadLine(IngestionMeasurement m)
    {
        var line = new System.Text.StringBuilder("    threads, us CPU/doc (% of one core):");
        var seconds = Math.Max((m.Startup + m.Elapsed).TotalSeconds, 1e-9);
        for (var i = 0; i < m.ThreadCpu.Count && i < 8; i++)
        {
            var (thread, cpu) = m.ThreadCpu[i];
            line.Append(CultureInfo.InvariantCulture, $" {thread.Trim()} {cpu.TotalMicroseconds / m.Documents:N2} ({cpu.TotalSeconds / seconds:P0});");
        }

        return line.ToString();
    }

    private static IngestionResult? Find(IReadOnlyList<IngestionResult> results, string workload, string system) =>
        results.FirstOrDefault(r => r.Workload == workload && r.System == system);

    private static string Cell(IngestionResult? result) => result switch
    {
        null => "-",
        { Measurement: { } m } => string.Create(CultureInfo.InvariantCulture, $"{m.DocumentsPerSecond:N0} ({m.MegabytesPerSecond:N1} MB/s)"),
        _ => "error",
    };

    private static string Milliseconds(TimeSpan value) => value.TotalMilliseconds.ToString(value.TotalMilliseconds < 10 ? "N1" : "N0", CultureInfo.InvariantCulture);
}
