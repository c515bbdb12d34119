namespace Ingest.Server.Tests.Batching;

/// <summary>A timer of <see cref="ManualTimeProvider"/>; due times are in the provider's ticks.</summary>
internal sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
{
    private bool _disposed;

    internal long DueAt { get; set; }

    internal long Period { get; set; }

    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        if (_disposed)
        {
            return false;
        }

        owner.Schedule(this, dueTime, period);
        return true;
    }

    public void Dispose()
    {
        _disposed = true;
        owner.Cancel(this);
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }

    internal void Fire() => callback(state);
}
