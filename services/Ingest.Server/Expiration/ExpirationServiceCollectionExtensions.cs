using Ingest.Server.Hosting;
using Ingest.Server.Telemetry;

namespace Ingest.Server.Expiration;

/// <summary>Registers expiration: its validated settings, the rules, the task and its metrics.</summary>
internal static class ExpirationServiceCollectionExtensions
{
    public static IServiceCollection AddExpiration(this IServiceCollection services, IConfiguration configuration)
    {
        services.AddValidatedSettings<ExpirationOptions>(configuration.GetSection(ExpirationOptions.SectionName), static o => o.Validate());
        services.AddSingleton<ExpirationProgress>();
        services.AddSingleton<ExpirationMetrics>();
        services.AddSingleton<RetentionRules>();
        services.AddSingleton<ExpirationService>();
        services.AddHostedService(static provider =>
        {
            provider.GetRequiredService<ExpirationMetrics>();
            return provider.GetRequiredService<ExpirationService>();
        });
        return services;
    }
}
