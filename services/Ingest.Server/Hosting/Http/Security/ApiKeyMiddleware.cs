using System.Diagnostics;

namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// Checks every request's <c>X-Api-Key</c> against the configured keys and the scope its endpoint
/// needs (<see cref="RequiredScope"/>; admin when an endpoint says nothing, so a new endpoint is closed
/// until it says otherwise). A missing or unknown key is a 401, a key without the scope a 403 naming it.
/// Admin actions are logged with the key's name, never the key. Without any key configured the API is
/// open and every caller is <see cref="ApiCaller.Anonymous"/>.
/// </summary>
public sealed partial class ApiKeyMiddleware
{
    public const string HeaderName = "X-Api-Key";

    /// <summary>The span tag that names the key a request was made with.</summary>
    public const string KeyNameTag = "ingest.api_key.name";

    private readonly RequestDelegate _next;
    private readonly ApiKeyRing _keys;
    private readonly ILogger<ApiKeyMiddleware> _logger;

    public ApiKeyMiddleware(RequestDelegate next, ApiKeyRing keys, ILogger<ApiKeyMiddleware> logger)
    {
        _next = next;
        _keys = keys;
        _logger = logger;
    }

    public Task InvokeAsync(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var endpoint = context.GetEndpoint();
        if (endpoint?.Metadata.GetMetadata<OpenEndpoint>() is not null)
        {
            return _next(context);
        }

        // A route without a declared scope needs admin; a request no route matched (404, and 405's
        // rejection endpoint, which is no RouteEndpoint) needs only a valid key, so it gets its 404 or 405.
        var required = endpoint?.Metadata.GetMetadata<RequiredScope>()?.Scope
            ?? (endpoint is RouteEndpoint ? ApiScopes.Admin : ApiScopes.None);
        var caller = ApiCaller.Anonymous;
        if (!_keys.IsEmpty)
        {
            var found = _keys.Find(context.Request.Headers[HeaderName].ToString());
            if (found is null)
            {
                return Results.Problem(
                    title: "Missing or wrong API key",
                    detail: $"This server requires an API key in the {HeaderName} header.",
                    statusCode: StatusCodes.Status401Unauthorized).ExecuteAsync(context);
            }

            caller = found;
            Activity.Current?.SetTag(KeyNameTag, caller.Name);
        }

        if (!caller.Has(required))
        {
            var scope = ApiScopeNames.Of(required);
            return Results.Problem(
                title: $"The API key lacks the '{scope}' scope",
                detail: $"{context.Request.Method} {context.Request.Path} needs the '{scope}' scope; the key '{caller.Name}' has {ApiScopeNames.Describe(caller.Scopes)}.",
                statusCode: StatusCodes.Status403Forbidden).ExecuteAsync(context);
        }

        context.SetApiCaller(caller);
        return (required & ApiScopes.Admin) == ApiScopes.Admin ? InvokeAdminAsync(context, caller) : _next(context);
    }

    private async Task InvokeAdminAsync(HttpContext context, ApiCaller caller)
    {
        try
        {
            await _next(context).ConfigureAwait(false);
        }
        finally
        {
            LogAdminAction(_logger, context.Request.Method, context.Request.Path.Value ?? "/", caller.Name, context.Response.StatusCode);
        }
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Admin action {Method} {Path} by API key '{KeyName}' answered {StatusCode}")]
    private static partial void LogAdminAction(ILogger logger, string method, string path, string keyName, int statusCode);
}
