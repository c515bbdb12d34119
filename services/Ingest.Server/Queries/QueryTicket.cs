using System.Threading.RateLimiting;
using Ingest.Query;

namespace Ingest.Server.Queries;

/// <summary>
/// A query's turn from <see cref="QueryGate"/>: its place among the running queries (given back on dispose), its time
/// budget (also ended by the client going away) and whether it may make automatic indexes.
/// </summary>
internal sealed class QueryTicket : IDisposable
{
    private readonly RateLimitLease _lease;
    private readonly bool _mayCreateAutoIndexes;

    public QueryTicket(RateLimitLease lease, QueryBudget budget, bool mayCreateAutoIndexes)
    {
        _lease = lease;
        Budget = budget;
        _mayCreateAutoIndexes = mayCreateAutoIndexes;
    }

    public QueryBudget Budget { get; }

    /// <summary>Cancelled when the budget is spent or the client went away.</summary>
    public CancellationToken Token => Budget.Token;

    public QueryOptions Options(TimeSpan? waitForNonStale, string? continuation) =>
        new() { WaitForNonStale = waitForNonStale, Continuation = continuation, Budget = Budget, MayCreateAutoIndexes = _mayCreateAutoIndexes };

    public void Dispose()
    {
        Budget.Dispose();
        _lease.Dispose();
    }
}
