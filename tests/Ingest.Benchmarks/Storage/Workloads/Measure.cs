using System.Diagnostics;

namespace Ingest.Benchmarks.Storage.Workloads;

internal static class Measure
{
    /// <summary>
    /// Times <paramref name="body"/> after a full collection, so garbage left by setup is not
    /// collected on the clock, and counts the bytes allocated meanwhile on all threads.
    /// </summary>
    public static WorkloadMeasurement Operations(long operations, Action body)
    {
        ArgumentNullException.ThrowIfNull(body);
        Settle();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var start = Stopwatch.GetTimestamp();
        body();
        var elapsed = Stopwatch.GetElapsedTime(start);
        var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
        return WorkloadMeasurement.FromRate(operations, elapsed, allocated);
    }

    public static void Settle()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }
}
