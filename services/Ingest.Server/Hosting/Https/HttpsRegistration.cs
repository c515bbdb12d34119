using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting.Https;

/// <summary>HTTPS from <c>Ingest:Https</c>: the validated settings, Kestrel's default certificate and the HSTS header.</summary>
internal static class HttpsRegistration
{
    public static IServiceCollection AddHttps(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var kestrelEndpoints = configuration.GetSection(ListenAddresses.KestrelEndpointsSection).Exists();
        services.AddValidatedSettings<HttpsOptions>(configuration.GetSection(HttpsOptions.SectionName), o => o.Validate(kestrelEndpoints));
        services.AddSingleton<IConfigureOptions<KestrelServerOptions>, KestrelHttps>();
        return services;
    }

    /// <summary>First in the pipeline, so every HTTPS answer, errors and 401s included, carries the header when asked.</summary>
    public static IApplicationBuilder UseStrictTransportSecurity(this IApplicationBuilder app) =>
        app.UseMiddleware<StrictTransportSecurity>();
}
