using System.Text.Json;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Reporting;

/// <summary>The --json output every benchmark writes: one <see cref="BenchmarkRecord"/> per measured cell.</summary>
internal static class BenchmarkJsonFile
{
    public static void Write(string path, IEnumerable<BenchmarkRecord> records)
    {
        using var stream = Create(path);
        JsonSerializer.Serialize(stream, records.ToList(), BenchmarkJsonContext.Default.ListBenchmarkRecord);
    }

    /// <summary>Creates (or replaces) the file, and the directories it goes in.</summary>
    public static FileStream Create(string path)
    {
        var directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }

        return File.Create(path);
    }

    /// <summary>A measurement's record, rounded as every benchmark rounds it.</summary>
    public static BenchmarkRecord Record(string workload, string system, WorkloadMeasurement measurement) => new(
        workload,
        system,
        Round(measurement.OpsPerSec, 1),
        Round(measurement.NsPerOp, 2),
        Round(measurement.BytesAllocatedPerOp, 2),
        Round(measurement.Value, 4));

    private static double? Round(double? value, int digits) => value is { } v ? Math.Round(v, digits) : null;
}
