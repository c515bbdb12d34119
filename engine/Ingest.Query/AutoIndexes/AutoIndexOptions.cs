namespace Ingest.Query.AutoIndexes;

/// <summary>How automatic indexes live (bound from <c>Ingest:Queries</c> by the server).</summary>
public sealed class AutoIndexOptions
{
    /// <summary>An automatic index no query used for this long is deleted.</summary>
    public TimeSpan AutoIndexIdleTimeout { get; set; } = TimeSpan.FromHours(1);

    /// <summary>Documents of the collection read to guess a field's type when the query does not say it.</summary>
    public int AutoIndexSampleDocuments { get; set; } = 256;

    /// <summary>
    /// Automatic indexes one collection may have at once (a widened index replaces the ones it covers once it has caught
    /// up, so more mean fields of conflicting types or a burst of widenings); beyond it a query that needs a new one is refused.
    /// </summary>
    public int MaxAutoIndexesPerCollection { get; set; } = 16;

    /// <summary>
    /// How often idle and superseded automatic indexes are looked for and the last-used times saved: a quarter of the
    /// idle timeout, at most a minute, so a restart loses at most that much of an index's idle time.
    /// </summary>
    public TimeSpan SweepInterval =>
        TimeSpan.FromTicks(Math.Clamp(AutoIndexIdleTimeout.Ticks / 4, TimeSpan.TicksPerMillisecond * 20, TimeSpan.TicksPerMinute));

    /// <summary>Throws when a value is out of range.</summary>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(AutoIndexIdleTimeout, TimeSpan.Zero, nameof(AutoIndexIdleTimeout));
        ArgumentOutOfRangeException.ThrowIfLessThan(AutoIndexSampleDocuments, 0, nameof(AutoIndexSampleDocuments));
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxAutoIndexesPerCollection, 1, nameof(MaxAutoIndexesPerCollection));
    }
}
