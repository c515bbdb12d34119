using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// The broker's own reference for <c>etl-kafka</c>: Kafka's <c>kafka-producer-perf-test.sh</c> (a JVM
/// producer, from <c>KAFKA_HOME</c>) sending as many records of the orders' average size with the
/// ETL task's delivery settings (acks=all, idempotent, linger 5 ms) to a fresh topic.
/// </summary>
internal static partial class KafkaProducerPerfTest
{
    public const string System = "kafka-producer-perf-test";

    /// <summary>The measurement, or null (with the reason printed) when the script is not there or fails.</summary>
    public static EtlMeasurement? RunIfAvailable(EtlTarget target, int count, int recordSize)
    {
        var home = Environment.GetEnvironmentVariable("KAFKA_HOME");
        var script = home is null ? null : Path.Combine(home, "bin", "kafka-producer-perf-test.sh");
        if (script is null || !File.Exists(script))
        {
            Console.WriteLine($"[{System}] skipped: set KAFKA_HOME to a Kafka installation for this reference line");
            return null;
        }

        var start = new ProcessStartInfo(script) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        string[] arguments =
        [
            "--topic", target.Name, "--num-records", count.ToString(CultureInfo.InvariantCulture),
            "--record-size", recordSize.ToString(CultureInfo.InvariantCulture), "--throughput", "-1",
            "--producer-props", $"bootstrap.servers={target.Kafka}", "acks=all", "enable.idempotence=true", "linger.ms=5",
        ];
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var errors = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        if (!process.WaitForExit(TimeSpan.FromMinutes(10)))
        {
            process.Kill(entireProcessTree: true);
            Console.WriteLine($"[{System}] did not finish in 10 minutes");
            return null;
        }

        // The summary line: "N records sent, R records/sec (M MB/sec), ... ms avg latency, ...".
        var summary = output.Split('\n').Select(static l => SummaryLine().Match(l)).LastOrDefault(static m => m.Success);
        if (process.ExitCode != 0 || summary is null)
        {
            Console.WriteLine($"[{System}] exit code {process.ExitCode}: {errors.Result.Trim()}");
            return null;
        }

        var sent = long.Parse(summary.Groups["sent"].Value, CultureInfo.InvariantCulture);
        var rate = double.Parse(summary.Groups["rate"].Value, CultureInfo.InvariantCulture);
        return new EtlMeasurement(sent, sent * recordSize, TimeSpan.FromSeconds(sent / rate));
    }

    [GeneratedRegex(@"^(?<sent>\d+) records sent, (?<rate>[\d.]+) records/sec")]
    private static partial Regex SummaryLine();
}
