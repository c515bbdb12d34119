namespace Ingest.Server.Batching;

/// <summary>
/// Callers of <see cref="BatchWriter.DrainAsync"/> waiting until the items added before they
/// asked are done (durable and acknowledged). One lock guards the list and the reading of the
/// done count, so a waiter is never added just after the count that would have completed it.
/// </summary>
internal sealed class DrainWaiters(string source, BatchWriterCounters counters)
{
    private readonly Lock _lock = new();
    private readonly List<(long Target, TaskCompletionSource Done)> _waiters = [];

    /// <summary>
    /// Adds a waiter for the first <paramref name="target"/> items. False when the answer is known
    /// at once: <paramref name="waiter"/> is then complete (all done) or failed (the writer's loop has stopped: with
    /// the loop's own failure when it failed).
    /// </summary>
    public bool TryAdd(long target, Task loop, out Task waiter)
    {
        lock (_lock)
        {
            if (counters.Done >= target)
            {
                waiter = Task.CompletedTask;
                return false;
            }

            if (loop.IsCompleted)
            {
                // A loop that failed (a store that failed for good) gives its cause, as a drain waiting at the time got.
                waiter = Task.FromException(loop.Exception?.InnerException ?? Stopped());
                return false;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((target, done));
            waiter = done.Task;
            return true;
        }
    }

    /// <summary>Completes the waiters whose items are done; with an exception, fails every waiter.</summary>
    public void Complete(Exception? exception)
    {
        lock (_lock)
        {
            var done = counters.Done;
            for (var i = _waiters.Count - 1; i >= 0; i--)
            {
                if (exception is not null)
                {
                    _waiters[i].Done.TrySetException(exception);
                }
                else if (_waiters[i].Target <= done)
                {
                    _waiters[i].Done.TrySetResult();
                }
                else
                {
                    continue;
                }

                _waiters.RemoveAt(i);
            }
        }
    }

    /// <summary>Fails every waiter: the writer's loop has stopped.</summary>
    public void Fail() => Complete(Stopped());

    private InvalidOperationException Stopped() => new($"Source '{source}': the batch writer has stopped.");
}
