using System.Diagnostics;

namespace Ingest.Query;

/// <summary>
/// How long one query may work: a token that is cancelled when the caller's token is (a client that went away) or when
/// the work has taken <see cref="Timeout"/>. Waits that cost nothing (for an index to catch up, <c>waitForNonStale</c>)
/// are left out: the engine pauses the clock around them, since a wait has its own bound and holds no CPU. Give the same
/// budget to every step of one query (start, then writing its rows); dispose it after the last.
/// </summary>
public sealed class QueryBudget : IDisposable
{
    private readonly CancellationTokenSource _source;
    private readonly CancellationToken _caller;
    private readonly object _clock = new();
    private long _runningSince;
    private long _spentTicks;
    private int _paused;

    /// <summary>A budget of <paramref name="timeout"/> (<see cref="System.Threading.Timeout.InfiniteTimeSpan"/>: none) that also ends with <paramref name="caller"/>.</summary>
    public QueryBudget(TimeSpan timeout, CancellationToken caller = default)
    {
        if (timeout <= TimeSpan.Zero && timeout != System.Threading.Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(timeout), timeout, "A query's time budget must be positive (or infinite).");
        }

        Timeout = timeout;
        _caller = caller;
        _source = CancellationTokenSource.CreateLinkedTokenSource(caller);
        _runningSince = Stopwatch.GetTimestamp();
        if (timeout != System.Threading.Timeout.InfiniteTimeSpan)
        {
            _source.CancelAfter(timeout);
        }
    }

    /// <summary>The work this budget allows.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>Cancelled when the budget is spent or the caller cancelled: pass it to every step of the query.</summary>
    public CancellationToken Token => _source.Token;

    /// <summary>The budget ran out (and not the caller: a client that went away is no timeout).</summary>
    public bool IsExpired => _source.IsCancellationRequested && !_caller.IsCancellationRequested;

    /// <summary>The error to raise for a query stopped by this budget.</summary>
    public QueryTimeoutException Expired() => new(Timeout);

    /// <summary>Stops the clock for a wait that does no work; <see cref="Resume"/> starts it again with what is left.</summary>
    internal void Pause()
    {
        if (Timeout == System.Threading.Timeout.InfiniteTimeSpan)
        {
            return;
        }

        lock (_clock)
        {
            if (_paused++ > 0 || _source.IsCancellationRequested)
            {
                return;
            }

            _spentTicks += Stopwatch.GetTimestamp() - _runningSince;
            _source.CancelAfter(System.Threading.Timeout.InfiniteTimeSpan);
        }
    }

    internal void Resume()
    {
        if (Timeout == System.Threading.Timeout.InfiniteTimeSpan)
        {
            return;
        }

        lock (_clock)
        {
            if (--_paused > 0 || _source.IsCancellationRequested)
            {
                return;
            }

            _runningSince = Stopwatch.GetTimestamp();
            var left = Timeout - Stopwatch.GetElapsedTime(0, _spentTicks);
            if (left <= TimeSpan.Zero)
            {
                _source.Cancel();
            }
            else
            {
                _source.CancelAfter(left);
            }
        }
    }

    public void Dispose() => _source.Dispose();
}
