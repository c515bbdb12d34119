using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Etl;

/// <summary>Registers the ETL tasks: their validated configuration and the service that runs them.</summary>
internal static class EtlServiceCollectionExtensions
{
    public static IServiceCollection AddEtl(this IServiceCollection services, IConfiguration configuration)
    {
        services.AddOptions<EtlOptions>()
            .Configure(options => configuration.GetSection(EtlOptions.SectionName).Bind(options.Tasks))
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<EtlOptions>>(new SettingsValidator<EtlOptions>(static o => o.Validate()));
        services.AddSingleton<EtlService>();
        services.AddHostedService(static provider => provider.GetRequiredService<EtlService>());
        return services;
    }
}
