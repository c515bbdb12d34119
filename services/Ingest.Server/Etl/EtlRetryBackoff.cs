namespace Ingest.Server.Etl;

/// <summary>
/// How long an ETL task waits before sending again after a failed delivery: one second, doubled after
/// each failure up to a minute, and back to one second once the broker acknowledges again.
/// </summary>
internal sealed class EtlRetryBackoff(TimeProvider time)
{
    private static readonly TimeSpan FirstDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan MaxDelay = TimeSpan.FromMinutes(1);

    /// <summary>The wait before the next attempt.</summary>
    public TimeSpan Delay { get; private set; } = FirstDelay;

    /// <summary>Waits out <see cref="Delay"/>, then doubles it for a failure after this one.</summary>
    public async Task WaitAsync(CancellationToken stop)
    {
        await Task.Delay(Delay, time, stop).ConfigureAwait(false);
        Delay = TimeSpan.FromTicks(Math.Min(Delay.Ticks * 2, MaxDelay.Ticks));
    }

    /// <summary>The broker acknowledges again: the next failure waits the first delay.</summary>
    public void Reset() => Delay = FirstDelay;
}
