namespace Ingest.Testing;

/// <summary>
/// Bytes a piece of code allocates on the calling thread. The per-thread counter can jump when a
/// garbage collection (caused by other tests running in parallel) retires this thread's allocation
/// buffer in the middle of the measurement, so a measurement a collection overlapped is repeated.
/// </summary>
internal static class ThreadAllocations
{
    public static long Measure(Action body)
    {
        ArgumentNullException.ThrowIfNull(body);
        long allocated = 0;
        for (var attempt = 0; attempt < 5; attempt++)
        {
            var collections = GC.CollectionCount(0);
            var before = GC.GetAllocatedBytesForCurrentThread();
            body();
            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (GC.CollectionCount(0) == collections)
            {
                return allocated;
            }
        }

        return allocated;
    }
}
