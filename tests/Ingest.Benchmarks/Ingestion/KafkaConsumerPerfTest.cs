using System.Diagnostics;
using System.Globalization;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// An extra reference line, not part of the table: Kafka's own kafka-consumer-perf-test.sh (a
/// JVM consumer) on the same topic, when <c>KAFKA_HOME</c> is set.
/// </summary>
internal static class KafkaConsumerPerfTest
{
    public static void RunIfAvailable(string bootstrapServers, PreloadedData data)
    {
        var home = Environment.GetEnvironmentVariable("KAFKA_HOME");
        var script = home is null ? null : Path.Combine(home, "bin", "kafka-consumer-perf-test.sh");
        if (script is null || !File.Exists(script))
        {
            return;
        }

        var start = new ProcessStartInfo(script)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[]
        {
            "--bootstrap-server", bootstrapServers, "--topic", data.Destination,
            "--messages", data.Documents.ToString(CultureInfo.InvariantCulture),
            "--group", KafkaPreload.GroupFor(data.Destination, "perf-test"), "--timeout", "120000",
        })
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start);
        if (process is null)
        {
            return;
        }

        var errors = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        if (!process.WaitForExit(TimeSpan.FromMinutes(5)))
        {
            process.Kill(entireProcessTree: true);
            Console.WriteLine("[kafka-consumer-perf-test] did not finish in 5 minutes");
            return;
        }

        // The last two lines are a CSV header and its values.
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (process.ExitCode != 0 || lines.Length < 2)
        {
            Console.WriteLine($"[kafka-consumer-perf-test] exit code {process.ExitCode}: {errors.Result.Trim()}");
            return;
        }

        var header = lines[^2].Split(',', StringSplitOptions.TrimEntries);
        var values = lines[^1].Split(',', StringSplitOptions.TrimEntries);
        string Field(string name)
        {
            var index = Array.IndexOf(header, name);
            return index >= 0 && index < values.Length ? values[index] : "?";
        }

        Console.WriteLine(
            $"[kafka-consumer-perf-test] {Field("data.consumed.in.nMsg")} msgs, {Field("nMsg.sec")} msgs/s overall, " +
            $"{Field("fetch.nMsg.sec")} msgs/s after the {Field("rebalance.time.ms")} ms group join, {Field("fetch.MB.sec")} MB/s (JVM consumer, for reference)");
    }
}
