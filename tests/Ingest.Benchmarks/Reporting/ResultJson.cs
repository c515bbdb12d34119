using System.Text.Json;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Reporting;

internal static class ResultJson
{
    /// <summary>Writes the measured results; "n/a" and failed cells have no line.</summary>
    public static void Write(string path, IEnumerable<WorkloadResult> results)
    {
        var records = results
            .Where(r => r.Outcome is WorkloadMeasurement)
            .Select(r => ToRecord(r, (WorkloadMeasurement)r.Outcome))
            .ToList();
        var directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }

        using var stream = File.Create(path);
        JsonSerializer.Serialize(stream, records, BenchmarkJsonContext.Default.ListBenchmarkRecord);
    }

    private static BenchmarkRecord ToRecord(WorkloadResult result, WorkloadMeasurement measurement) => new(
        result.Workload.Name,
        result.System,
        Round(measurement.OpsPerSec, 1),
        Round(measurement.NsPerOp, 2),
        Round(measurement.BytesAllocatedPerOp, 2),
        Round(measurement.Value, 4));

    private static double? Round(double? value, int digits) => value is { } v ? Math.Round(v, digits) : null;
}
