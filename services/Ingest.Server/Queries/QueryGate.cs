using System.Threading.RateLimiting;
using Ingest.Query;
using Ingest.Server.Hosting.Http.Security;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Queries;

/// <summary>
/// Admits the queries of <c>/queries</c>, <c>/queries/explain</c> and the Grafana data source: at most
/// <see cref="QueryLimitOptions.EffectiveMaxConcurrent"/> at once, <see cref="QueryLimitOptions.MaxQueued"/> more
/// waiting in arrival order (each at most its budget), the rest refused with <see cref="QueryRejectedException"/>. Each
/// admitted query gets its budget, linked with the request's <see cref="HttpContext.RequestAborted"/> so a client that
/// goes away stops the work, and the caller's right to make automatic indexes.
/// </summary>
internal sealed class QueryGate : IDisposable
{
    private readonly ConcurrencyLimiter _limiter;
    private readonly QueryLimitOptions _options;

    public QueryGate(IOptions<QueryLimitOptions> options)
    {
        _options = options.Value;
        _limiter = new ConcurrencyLimiter(new ConcurrencyLimiterOptions
        {
            PermitLimit = _options.EffectiveMaxConcurrent,
            QueueLimit = _options.MaxQueued,
            QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
        });
    }

    public QueryLimitOptions Options => _options;

    /// <summary>Queries running now (for tests and stats).</summary>
    public int Running => _options.EffectiveMaxConcurrent - (int)(_limiter.GetStatistics()?.CurrentAvailablePermits ?? 0);

    /// <summary>Queries waiting for a turn now.</summary>
    public int Queued => (int)(_limiter.GetStatistics()?.CurrentQueuedCount ?? 0);

    /// <summary>
    /// Waits for a turn. <paramref name="requested"/> is the request's <c>timeout</c>: it may shorten the budget, never
    /// lengthen it past <see cref="QueryLimitOptions.Timeout"/>.
    /// </summary>
    /// <exception cref="QueryRejectedException">No slot and no room to wait, or no slot within the budget.</exception>
    public async Task<QueryTicket> EnterAsync(HttpContext context, TimeSpan? requested)
    {
        var budget = requested is { } asked && asked < _options.Timeout ? asked : _options.Timeout;
        var aborted = context.RequestAborted;
        RateLimitLease lease;
        using (var wait = CancellationTokenSource.CreateLinkedTokenSource(aborted))
        {
            wait.CancelAfter(budget);
            try
            {
                lease = await _limiter.AcquireAsync(1, wait.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!aborted.IsCancellationRequested)
            {
                throw Rejected($"waited {QueryTimeoutException.Describe(budget)} (its time budget) for one to finish");
            }
        }

        if (!lease.IsAcquired)
        {
            lease.Dispose();
            throw Rejected($"{_options.MaxQueued} more are waiting, which is as many as may wait");
        }

        var caller = context.GetApiCaller();
        return new QueryTicket(lease, new QueryBudget(budget, aborted), caller.Has(ApiScopes.Write) || _options.ReadKeysCreateAutoIndexes);
    }

    public void Dispose() => _limiter.Dispose();

    private QueryRejectedException Rejected(string why) =>
        new($"The server runs at most {_options.EffectiveMaxConcurrent} queries at once ({QuerySettings.SectionName}:{nameof(QueryLimitOptions.MaxConcurrent)}) and this one {why}. Try again in a moment.");
}
