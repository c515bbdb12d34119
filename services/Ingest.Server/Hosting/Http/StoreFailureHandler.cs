using Ingest.Storage;
using Microsoft.AspNetCore.Diagnostics;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// Turns the store's own failures, wherever an endpoint meets them, into problems that name them
/// (507 for a full disk, the damaged-store problem for a page that failed its checksum) instead of
/// the generic 500; anything else goes on to the default handler.
/// </summary>
internal sealed partial class StoreFailureHandler(ILogger<StoreFailureHandler> logger) : IExceptionHandler
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
