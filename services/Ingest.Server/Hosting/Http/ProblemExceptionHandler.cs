using Ingest.Indexing.Definitions;
using Ingest.Query;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Syntax;
using Ingest.Server.Grafana;
using Ingest.Server.Indexes;
using Ingest.Server.Queries;
using Ingest.Storage;
using Microsoft.AspNetCore.Diagnostics;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// The one mapping from the exceptions endpoints let through to problems: the store's failures (507 for a full disk,
/// the damaged-store problem for a page that failed its checksum), a query's mistakes (400 with the position) and an
/// index that cannot answer now (503), an invalid index definition (400 listing every error), and the Grafana data
/// source's request and target errors (the same problems with the <c>message</c> its panels show). Anything else goes
/// on to the default handler. A query whose response has started cannot become a problem: <c>/queries</c> cuts the
/// connection itself.
/// </summary>
internal sealed partial class ProblemExceptionHandler(ILogger<ProblemExceptionHandler> logger) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        IResult problem;
        switch (exception)
        {
            case DiskFullException full:
                LogDiskFull(logger, httpContext.Request.Method, httpContext.Request.Path, full.Message);
                problem = StoreProblems.DiskFull(full);
                break;
            case StorageCorruptionException damaged:
                LogDamaged(logger, httpContext.Request.Method, httpContext.Request.Path, damaged);
                problem = StoreProblems.Damaged(damaged);
                break;
            case QueryException invalid:
                problem = QueryProblems.Invalid(invalid);
                break;
            case QueryUnavailableException unavailable:
                problem = QueryProblems.Unavailable(unavailable);
                break;
            case QueryTimeoutException timedOut:
                problem = QueryProblems.TimedOut(timedOut, httpContext);
                break;
            case QueryRejectedException rejected:
                problem = QueryProblems.TooMany(rejected, httpContext);
                break;
            case AutoIndexDeniedException denied:
                problem = QueryProblems.AutoIndexDenied(denied);
                break;
            case AutoIndexLimitException limit:
                problem = QueryProblems.AutoIndexLimit(limit);
                break;
            case IndexDefinitionException definition:
                problem = IndexProblems.InvalidDefinition(definition.IndexName ?? string.Empty, definition.Errors);
                break;
            case GrafanaRequestException request:
                problem = GrafanaProblems.BadRequest(request.Message);
                break;
            case GrafanaTargetException { InnerException: QueryException invalid } target:
                problem = GrafanaProblems.InvalidQuery(target.Message, invalid, target.RefId);
                break;
            case GrafanaTargetException { InnerException: QueryUnavailableException } target:
                problem = GrafanaProblems.Unavailable(target.Message);
                break;
            case Cluster.ClusterUnavailableException unavailable:
                problem = Cluster.ClusterProblems.Unavailable(unavailable);
                break;
            case Cluster.ClusterApplyTimeoutException notApplied:
                problem = Cluster.ClusterProblems.NotApplied(notApplied);
                break;
            default:
                return false;
        }

        await problem.ExecuteAsync(httpContext).ConfigureAwait(false);
        return true;
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "{Method} {Path} failed: {Reason}")]
    private static partial void LogDiskFull(ILogger logger, string method, PathString path, string reason);

    [LoggerMessage(Level = LogLevel.Error, Message = "{Method} {Path} met a damaged store")]
    private static partial void LogDamaged(ILogger logger, string method, PathString path, Exception exception);
}
