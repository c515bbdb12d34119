namespace Ingest.Server.Tests.Batching;

/// <summary>
/// A clock that moves only when told to. <see cref="Advance"/> fires due timers in due-time
/// order on the calling thread, with the clock set to each timer's due time as it fires.
/// </summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private static readonly DateTimeOffset Epoch = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    private readonly Lock _lock = new();
    private readonly List<ManualTimer> _timers = [];
    private long _now;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public TimeSpan Elapsed
    {
        get
        {
            lock (_lock)
            {
                return TimeSpan.FromTicks(_now);
            }
        }
    }

    public override long GetTimestamp()
    {
        lock (_lock)
        {
            return _now;
        }
    }

    public override DateTimeOffset GetUtcNow() => Epoch + Elapsed;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    public void Advance(TimeSpan by)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(by, TimeSpan.Zero);
        long target;
        lock (_lock)
        {
            target = _now + by.Ticks;
        }

        while (true)
        {
            ManualTimer? due = null;
            lock (_lock)
            {
                foreach (var timer in _timers)
                {
                    if (timer.DueAt <= target && (due is null || timer.DueAt < due.DueAt))
                    {
                        due = timer;
                    }
                }

                if (due is null)
                {
                    _now = target;
                    return;
                }

                _now = Math.Max(_now, due.DueAt);
                if (due.Period > 0)
                {
                    due.DueAt += due.Period;
                }
                else
                {
                    _timers.Remove(due);
                }
            }

            // Outside the lock: the callback may read the clock or change timers.
            due.Fire();
        }
    }

    internal void Schedule(ManualTimer timer, TimeSpan dueTime, TimeSpan period)
    {
        lock (_lock)
        {
            _timers.Remove(timer);
            if (dueTime == Timeout.InfiniteTimeSpan)
            {
                return;
            }

            timer.DueAt = _now + dueTime.Ticks;
            timer.Period = period == Timeout.InfiniteTimeSpan ? 0 : period.Ticks;
            _timers.Add(timer);
        }
    }

    internal void Cancel(ManualTimer timer)
    {
        lock (_lock)
        {
            _timers.Remove(timer);
        }
    }
}
