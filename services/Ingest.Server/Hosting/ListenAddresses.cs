using Ingest.Server.Hosting.Https;

namespace Ingest.Server.Hosting;

/// <summary>
/// Where the server listens. ASP.NET's usual sources choose (ASPNETCORE_URLS or URLS, --urls, a Urls setting,
/// ASPNETCORE_HTTP_PORTS/HTTPS_PORTS, Kestrel:Endpoints); <c>Ingest:Https:Url</c> is added to what they chose; the
/// loopback default applies only when nothing chose. A Urls in appsettings.json would hide ASPNETCORE_URLS, which
/// ASP.NET reads first, so the default lives here instead.
/// </summary>
internal static class ListenAddresses
{
    public const string KestrelEndpointsSection = "Kestrel:Endpoints";

    /// <summary>
    /// The addresses to give Kestrel as <c>urls</c>, or null to leave ASP.NET's choice alone. Kestrel:Endpoints make
    /// Kestrel ignore urls (Ingest:Https:Url is refused beside them), and HTTP_PORTS stop counting once urls is set, so
    /// with an HTTPS address they are written out as ASP.NET would (<c>http://*:PORT</c>).
    /// </summary>
    public static string? Choose(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        if (configuration.GetSection(KestrelEndpointsSection).Exists())
        {
            return null;
        }

        var chosen = configuration["urls"];
        if (string.IsNullOrEmpty(chosen))
        {
            chosen = string.Join(';', Expand(configuration["http_ports"], "http").Concat(Expand(configuration["https_ports"], "https")));
        }

        var https = configuration[$"{HttpsOptions.SectionName}:{nameof(HttpsOptions.Url)}"];
        if (string.IsNullOrEmpty(https))
        {
            return chosen.Length == 0 ? HttpOptions.DefaultUrls : null;
        }

        return chosen.Length == 0 ? https : $"{chosen};{https}";
    }

    private static IEnumerable<string> Expand(string? ports, string scheme) =>
        (ports ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(port => $"{scheme}://*:{port}");
}
