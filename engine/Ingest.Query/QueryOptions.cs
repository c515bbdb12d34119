namespace Ingest.Query;

/// <summary>
/// How <see cref="QueryEngine"/> runs one query: how long to wait for the index to catch up (null: answer at once,
/// stale or not), the continuation token of the previous page, the time budget of the work (null: none), and whether
/// the query may make or extend an automatic index (when it may not and would have to, it fails with
/// <see cref="AutoIndexes.AutoIndexDeniedException"/> naming the index it needs).
/// </summary>
public sealed record QueryOptions
{
    public TimeSpan? WaitForNonStale { get; init; }

    public string? Continuation { get; init; }

    /// <summary>The time budget, made with the caller's cancellation token: when given, its token is the one observed.</summary>
    public QueryBudget? Budget { get; init; }

    public bool MayCreateAutoIndexes { get; init; } = true;
}
