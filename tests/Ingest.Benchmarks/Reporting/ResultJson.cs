using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Reporting;

internal static class ResultJson
{
    /// <summary>Writes the measured results; "n/a" and failed cells have no line.</summary>
    public static void Write(string path, IEnumerable<WorkloadResult> results) =>
        BenchmarkJsonFile.Write(
            path,
            results
                .Where(r => r.Outcome is WorkloadMeasurement)
                .Select(r => BenchmarkJsonFile.Record(r.Workload.Name, r.System, (WorkloadMeasurement)r.Outcome)));
}
