using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.WebConsole;

/// <summary>
/// The web console at <c>/</c> and <c>/console</c>: static files built into the server, open without a key
/// because they hold no data. The page asks for the key in a login form, keeps it in the browser's session
/// storage and sends it in <c>X-Api-Key</c> on every API call it makes, exactly as a script would; the console
/// has no endpoint of its own. Pages are addressed in the fragment (<c>/console#/query</c>), so the server needs
/// no route per page and a key can never end up in a URL or a server log.
/// </summary>
public static class ConsoleEndpoints
{
    public const string IndexFile = "index.html";

    // The console's own files only: no inline script or style, no other origin (no CDN), no framing.
    private const string ContentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    public static IEndpointRouteBuilder MapConsole(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        var assets = ConsoleAssets.FromResources(typeof(ConsoleEndpoints).Assembly);
        endpoints.MapGet("/", (HttpContext context) => Serve(context, assets, IndexFile)).OpenToAnyone().ExcludeFromDescription();
        endpoints.MapGet("/console", (HttpContext context) => Serve(context, assets, IndexFile)).OpenToAnyone().ExcludeFromDescription();
        endpoints.MapGet("/console/{**file}", (HttpContext context, string? file) => Serve(context, assets, string.IsNullOrEmpty(file) ? IndexFile : file))
            .OpenToAnyone().ExcludeFromDescription();
        return endpoints;
    }

    private static IResult Serve(HttpContext context, ConsoleAssets assets, string file)
    {
        if (!assets.TryGet(file, out var asset))
        {
            return Results.Problem(
                title: "Not a console file",
                detail: $"The console has no file '{file}'. Open /console for its pages.",
                statusCode: StatusCodes.Status404NotFound);
        }

        var headers = context.Response.Headers;
        headers.ETag = asset.ETag;
        // Revalidate every time: a new server build brings new files under the same names.
        headers.CacheControl = "no-cache";
        headers.XContentTypeOptions = "nosniff";
        headers.ContentSecurityPolicy = ContentSecurityPolicy;
        headers["Referrer-Policy"] = "no-referrer";
        if (context.Request.Headers.IfNoneMatch.ToString() == asset.ETag)
        {
            return Results.StatusCode(StatusCodes.Status304NotModified);
        }

        return Results.Bytes(asset.Bytes, asset.ContentType);
    }
}
