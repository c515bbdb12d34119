using Ingest.Server.Brokers;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting;

namespace Ingest.Server.Etl;

/// <summary>Registers the ETL tasks: their validated configuration and the service that runs them.</summary>
internal static class EtlServiceCollectionExtensions
{
    public static IServiceCollection AddEtl(this IServiceCollection services, IConfiguration configuration)
    {
        // The section is the list of tasks itself (Ingest:Etl:0, ...), not an object holding one.
        services.AddValidatedSettings<EtlOptions>(
            static o => o.Validate(), builder => builder.Configure(options => configuration.GetSection(EtlOptions.SectionName).Bind(options.Tasks)));
        services.AddSingleton(static provider => ConfiguredSecrets.From(provider.GetRequiredService<IConfiguration>()));
        services.AddSingleton<EtlClusterProgress>();
        services.AddSingleton<IClusterRecordHandler>(static provider => provider.GetRequiredService<EtlClusterProgress>());
        services.AddSingleton<EtlService>();
        services.AddHostedService(static provider => provider.GetRequiredService<EtlService>());
        return services;
    }
}
