namespace Ingest.Server.Queries;

/// <summary>
/// <c>Ingest:Queries</c> limits on what one query, and all of them together, may take: the time budget of a query's
/// work, how many run at once and how many may wait for a turn, and whether a read-only key may make automatic indexes.
/// </summary>
public sealed class QueryLimitOptions
{
    /// <summary>
    /// The work one query may do (choosing and making its index, filtering, sorting, grouping, reading and writing its
    /// rows); waiting for the index to catch up (<c>waitForNonStale</c>) does not count. A request may ask for less.
    /// </summary>
    public TimeSpan Timeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Queries that run at once; 0 (the default) is half the processor count, at least one. A query is one thread of
    /// CPU while it computes: half the cores leave the rest to ingestion and indexing (the
    /// <c>kafka-ingest-under-queries</c> benchmark measures what that keeps).
    /// </summary>
    public int MaxConcurrent { get; set; }

    /// <summary>
    /// Queries that wait for a turn when <see cref="MaxConcurrent"/> run, each at most its time budget; beyond them a
    /// query is refused at once with 429. A Grafana dashboard asks for each panel at the same moment: a short queue lets
    /// its panels take turns instead of failing.
    /// </summary>
    public int MaxQueued { get; set; } = 32;

    /// <summary>Whether a key with only the <c>read</c> scope may make (or widen) automatic indexes.</summary>
    public bool ReadKeysCreateAutoIndexes { get; set; }

    /// <summary><see cref="MaxConcurrent"/> with its default applied.</summary>
    public int EffectiveMaxConcurrent => MaxConcurrent > 0 ? MaxConcurrent : Math.Max(1, Environment.ProcessorCount / 2);

    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (Timeout <= TimeSpan.Zero)
        {
            errors.Add($"{QuerySettings.SectionName}:{nameof(Timeout)} must be > 0, e.g. 00:00:05 for five seconds (was {Timeout}).");
        }

        if (MaxConcurrent < 0)
        {
            errors.Add($"{QuerySettings.SectionName}:{nameof(MaxConcurrent)} must be 0 (half the processors) or more (was {MaxConcurrent}).");
        }

        if (MaxQueued < 0)
        {
            errors.Add($"{QuerySettings.SectionName}:{nameof(MaxQueued)} must be 0 (refuse at once when all run) or more (was {MaxQueued}).");
        }

        return errors;
    }
}
