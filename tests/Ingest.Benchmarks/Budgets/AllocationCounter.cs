namespace Ingest.Benchmarks.Budgets;

/// <summary>Which of the runtime's allocation counters a probe is measured with.</summary>
internal enum AllocationCounter
{
    /// <summary>
    /// <see cref="GC.GetAllocatedBytesForCurrentThread"/>: the path runs on the measuring thread, so nothing else the
    /// process does (the storage flusher, timers) is counted.
    /// </summary>
    Thread,

    /// <summary>
    /// <see cref="GC.GetTotalAllocatedBytes(bool)"/> (precise): the path hands its work to another thread (the
    /// document store's writer), so every thread's bytes are counted, the store's background work included.
    /// </summary>
    Process,
}
