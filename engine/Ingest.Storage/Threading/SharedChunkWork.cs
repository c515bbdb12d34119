namespace Ingest.Storage.Threading;

/// <summary>
/// Work cut into numbered chunks that the calling thread and one thread-pool thread take from a
/// shared counter. The caller never waits for the helper to start: if the helper has not started
/// when the chunks run out, it is told not to, so a busy pool costs only the queueing; if it has,
/// the caller waits for the one chunk it is on. Reusable once <see cref="RunChunks"/> returns.
/// The journal's diff encoding uses it, and so does the document store's batch validation.
/// </summary>
public abstract class SharedChunkWork : IThreadPoolWorkItem
{
    private const int NotStarted = 0;
    private const int Running = 1;
    private const int Done = 2;
    private int _chunks;
    private int _nextChunk;
    private int _helper = Done;

    /// <summary>Runs chunks [0, <paramref name="chunks"/>) on this thread and the helper; returns when all are done.</summary>
    protected void RunChunks(int chunks)
    {
        _chunks = chunks;
        _nextChunk = 0;
        Volatile.Write(ref _helper, NotStarted); // last: a late work item from an earlier run sees a whole run or none
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        TakeChunks();
        if (Interlocked.CompareExchange(ref _helper, Done, NotStarted) != NotStarted)
        {
            var spin = default(SpinWait);
            while (Volatile.Read(ref _helper) != Done)
            {
                spin.SpinOnce(sleep1Threshold: -1);
            }
        }
    }

    /// <summary>Runs one chunk; on the helper thread too, so it must not throw.</summary>
    protected abstract void RunChunk(int chunk);

    /// <summary>False to stop taking chunks from <paramref name="chunk"/> on (an earlier chunk failed).</summary>
    protected virtual bool ShouldRun(int chunk) => true;

    void IThreadPoolWorkItem.Execute()
    {
        if (Interlocked.CompareExchange(ref _helper, Running, NotStarted) != NotStarted)
        {
            return; // the caller finished without this thread
        }

        try
        {
            TakeChunks();
        }
        finally
        {
            Volatile.Write(ref _helper, Done);
        }
    }

    private void TakeChunks()
    {
        while (true)
        {
            var chunk = Interlocked.Increment(ref _nextChunk) - 1;
            if (chunk >= _chunks || !ShouldRun(chunk))
            {
                return;
            }

            RunChunk(chunk);
        }
    }
}
