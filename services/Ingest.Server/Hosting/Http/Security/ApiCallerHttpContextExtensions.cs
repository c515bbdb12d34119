namespace Ingest.Server.Hosting.Http.Security;

/// <summary>Reads the caller the API key middleware attached to a request.</summary>
public static class ApiCallerHttpContextExtensions
{
    /// <summary>
    /// The request's caller; <see cref="ApiCaller.Anonymous"/> when the server has no keys (or in a
    /// test that calls an endpoint without the middleware).
    /// </summary>
    public static ApiCaller GetApiCaller(this HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return context.Features.Get<ApiCaller>() ?? ApiCaller.Anonymous;
    }

    internal static void SetApiCaller(this HttpContext context, ApiCaller caller) => context.Features.Set(caller);
}
