using System.Globalization;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Storage;

/// <summary>
/// Runs every selected workload on one system after the other (never two systems at once), each
/// system in a fresh directory under the same base directory, deleted afterwards. Each key-value system first gets the
/// same untimed warm-up (<see cref="StorageWarmup"/>) so that no system's first workload pays for JIT compilation.
/// </summary>
internal sealed class StorageBenchmarkRunner(StorageDataset data, TextWriter log)
{
    public IReadOnlyList<WorkloadResult> Run(
        IReadOnlyList<StorageSystemRegistration> systems,
        IReadOnlyList<StorageWorkload> workloads,
        string baseDirectory)
    {
        ArgumentNullException.ThrowIfNull(systems);
        ArgumentNullException.ThrowIfNull(workloads);
        var results = new List<WorkloadResult>();
        foreach (var registration in systems)
        {
            if (registration.Open is null)
            {
                log.WriteLine($"[{registration.Name}] not wired in yet (see Storage/StorageSystems.cs); its column shows \"-\".");
                continue;
            }

            if (StorageWarmup.Run(registration.Open, baseDirectory, data.Seed + 100, out var warmup))
            {
                log.WriteLine($"[{registration.Name}] warm-up (not timed, the same for every system, in a directory of its own): {warmup.TotalMilliseconds:0} ms");
            }

            var directory = Path.Combine(baseDirectory, $"ingest-bench-{registration.Name}-{Guid.NewGuid():N}");
            Directory.CreateDirectory(directory);
            try
            {
                using var system = registration.Open(directory);
                log.WriteLine($"[{registration.Name}] {system.Description}");
                var context = new WorkloadContext(data, log);
                foreach (var workload in workloads)
                {
                    var outcome = RunOne(workload, system, context);
                    results.Add(new WorkloadResult(workload, registration.Name, outcome));
                    log.WriteLine(Describe(registration.Name, workload, outcome));
                }
            }
            finally
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        foreach (var workload in workloads)
        {
            if (!results.Any(r => r.Workload == workload && r.Outcome is WorkloadMeasurement))
            {
                log.WriteLine($"{workload.Name}: n/a: {workload.NoSystemReason}");
            }
        }

        return results;
    }

    private static WorkloadOutcome RunOne(StorageWorkload workload, IStorageSystem system, WorkloadContext context)
    {
        try
        {
            return workload.Run(system, context);
        }
#pragma warning disable CA1031 // One failing workload is reported and the run goes on with the next.
        catch (Exception e)
#pragma warning restore CA1031
        {
            return new WorkloadFailed(e);
        }
    }

    private static string Describe(string system, StorageWorkload workload, WorkloadOutcome outcome) => outcome switch
    {
        WorkloadMeasurement { OpsPerSec: { } ops } m => string.Create(
            CultureInfo.InvariantCulture,
            $"[{system}] {workload.Name,-32} {ops,14:N0} {workload.Unit,-10} {m.NsPerOp,12:N1} ns/op {m.BytesAllocatedPerOp,10:N1} B/op {m.Elapsed.TotalSeconds,8:N2} s"),
        WorkloadMeasurement { Value: { } value } => string.Create(
            CultureInfo.InvariantCulture,
            $"[{system}] {workload.Name,-32} {value,14:N3} {workload.Unit}"),
        WorkloadNotApplicable notApplicable => $"[{system}] {workload.Name,-32} n/a: {notApplicable.Reason}",
        WorkloadFailed failed => $"[{system}] {workload.Name,-32} FAILED: {failed.Error}",
        _ => $"[{system}] {workload.Name,-32} {outcome}",
    };
}
