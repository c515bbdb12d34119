using System.Diagnostics;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// Measures a probe: rounds off the record until the tiered JIT has had time to optimise the path (tier-0 code can
/// allocate what optimised code does not, e.g. boxes), then five recorded rounds. The smallest per-op figure of the
/// recorded rounds is the result: a path's own allocation repeats in every round, while one-off runtime work on the
/// thread (a tier-up, a collection retiring the allocation buffer) does not.
/// </summary>
internal static class AllocationRunner
{
    /// <summary>Rounds recorded after the warm-up; the smallest figure among them is the result.</summary>
    public const int RecordedRounds = 5;

    private const int MinWarmupRounds = 3;
    private const int MaxWarmupRounds = 40;
    private static readonly TimeSpan _warmup = TimeSpan.FromMilliseconds(500);

    public static AllocationMeasurement Measure(AllocationProbe probe)
    {
        ArgumentNullException.ThrowIfNull(probe);
        var start = Stopwatch.GetTimestamp();
        if (probe.WarmupRounds is { } fixedRounds)
        {
            for (var round = 0; round < fixedRounds; round++)
            {
                probe.RunRound();
            }
        }
        else
        {
            for (var round = 0; round < MinWarmupRounds || (round < MaxWarmupRounds && Stopwatch.GetElapsedTime(start) < _warmup); round++)
            {
                probe.RunRound();
            }
        }

        var best = double.MaxValue;
        var highest = 0.0;
        for (var round = 0; round < RecordedRounds; round++)
        {
            var before = Allocated(probe.Counter);
            var operations = probe.RunRound();
            var bytes = Allocated(probe.Counter) - before;
            best = Math.Min(best, bytes / (double)operations);
            highest = Math.Max(highest, bytes / (double)operations);
        }

        var counter = probe.Counter == AllocationCounter.Thread ? "thread" : "process";
        return new AllocationMeasurement(probe.Path, best, highest, probe.Operation, counter);
    }

    private static long Allocated(AllocationCounter counter) =>
        counter == AllocationCounter.Thread ? GC.GetAllocatedBytesForCurrentThread() : GC.GetTotalAllocatedBytes(precise: true);
}
