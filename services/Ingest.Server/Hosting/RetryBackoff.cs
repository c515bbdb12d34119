namespace Ingest.Server.Hosting;

/// <summary>
/// The service's one retry rhythm: a delay that doubles after each failure up to a cap and starts over after a
/// success. Store writes (100 ms to 5 s), RabbitMQ connections (1 s to 30 s) and ETL deliveries (1 s to 1 min) use it.
/// </summary>
internal sealed class RetryBackoff(TimeSpan first, TimeSpan max)
{
    private readonly TimeSpan _first = first;
    private readonly TimeSpan _max = max;

    /// <summary>The wait before the next attempt.</summary>
    public TimeSpan Delay { get; private set; } = first;

    /// <summary>An attempt failed (its wait already taken): the next one waits twice as long, up to the cap.</summary>
    public void Failed() => Delay = TimeSpan.FromTicks(Math.Min(Delay.Ticks * 2, _max.Ticks));

    /// <summary>An attempt succeeded: the next failure waits the first delay again.</summary>
    public void Succeeded() => Delay = _first;
}
