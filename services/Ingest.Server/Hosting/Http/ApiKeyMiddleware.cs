using System.Security.Cryptography;
using System.Text;
using Ingest.Server.Hosting;
using Ingest.Server.Telemetry;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// When an API key is configured, every request but <c>/alive</c> and <c>/metrics</c> must carry it in
/// <c>X-Api-Key</c>. Probes and Prometheus scrapes send no custom headers; neither path reveals documents.
/// </summary>
public sealed class ApiKeyMiddleware
{
    public const string HeaderName = "X-Api-Key";

    private readonly RequestDelegate _next;
    private readonly byte[]? _key;

    public ApiKeyMiddleware(RequestDelegate next, IOptions<IngestOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _next = next;
        var key = options.Value.ApiKey;
        _key = string.IsNullOrEmpty(key) ? null : Encoding.UTF8.GetBytes(key);
    }

    public Task InvokeAsync(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (_key is null || IsOpenPath(context.Request.Path))
        {
            return _next(context);
        }

        var presented = context.Request.Headers[HeaderName].ToString();
        if (presented.Length > 0 && CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(presented), _key))
        {
            return _next(context);
        }

        return Results.Problem(
            title: "Missing or wrong API key",
            detail: $"This server requires its API key in the {HeaderName} header.",
            statusCode: StatusCodes.Status401Unauthorized).ExecuteAsync(context);
    }

    private static bool IsOpenPath(PathString path) =>
        path.Equals("/alive", StringComparison.Ordinal) || path.Equals(TelemetryServiceCollectionExtensions.MetricsPath, StringComparison.Ordinal);
}
