using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting.Https;

/// <summary>
/// Adds <c>Strict-Transport-Security</c> to every HTTPS response when <c>Ingest:Https:Hsts</c> asks, and to no plain
/// HTTP one (RFC 6797 has browsers ignore it there). Unlike ASP.NET's HSTS middleware it does not skip localhost: a user
/// who turned it on gets it. The header is added as the response starts, so the error answers of the exception
/// handler (which clears the headers set before it) carry it too.
/// </summary>
internal sealed class StrictTransportSecurity
{
    private readonly RequestDelegate _next;
    private readonly string? _header;
    private readonly Func<object, Task> _addHeader;

    public StrictTransportSecurity(RequestDelegate next, IOptions<HttpsOptions> https)
    {
        ArgumentNullException.ThrowIfNull(https);
        _next = next;
        _header = https.Value.Hsts ? HeaderValue(https.Value) : null;
        _addHeader = AddHeader;
    }

    public Task InvokeAsync(HttpContext context)
    {
        if (_header is not null && context.Request.IsHttps)
        {
            context.Response.OnStarting(_addHeader, context);
        }

        return _next(context);
    }

    internal static string HeaderValue(HttpsOptions settings) =>
        $"max-age={(long)settings.HstsMaxAge.TotalSeconds}{(settings.HstsIncludeSubDomains ? "; includeSubDomains" : string.Empty)}";

    private Task AddHeader(object context)
    {
        ((HttpContext)context).Response.Headers.StrictTransportSecurity = _header;
        return Task.CompletedTask;
    }
}
