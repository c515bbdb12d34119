namespace Ingest.Testing;

/// <summary>
/// Bytes a piece of code allocates on the calling thread, for tests that expect none. Two things can add bytes the
/// code under test did not allocate: a garbage collection (caused by other tests running in parallel) that retires
/// this thread's allocation buffer mid-measurement, and one-off runtime work on this thread (a method's tier-up or
/// on-stack replacement in the middle of the measured loop, seen once in CI as 7,280 bytes). Neither repeats, while an
/// allocation of the code under test happens on every run; so the body is run again (up to five times) and the
/// smallest count of a run that no collection overlapped is returned.
/// </summary>
public static class ThreadAllocations
{
    private const int Attempts = 5;

    public static long Measure(Action body)
    {
        ArgumentNullException.ThrowIfNull(body);
        long? smallestClean = null;
        long last = 0;
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            var collections = GC.CollectionCount(0);
            var before = GC.GetAllocatedBytesForCurrentThread();
            body();
            last = GC.GetAllocatedBytesForCurrentThread() - before;
            if (GC.CollectionCount(0) != collections)
            {
                continue;
            }

            if (last == 0)
            {
                return 0;
            }

            smallestClean = Math.Min(smallestClean ?? long.MaxValue, last);
        }

        return smallestClean ?? last;
    }
}
