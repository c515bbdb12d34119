using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Cluster;

/// <summary>
/// Registers cluster mode's parts (the log, the applier, the topics' check) only when <c>Ingest:Cluster:Node</c> is set:
/// in single-node mode none of them exists, and endpoints find no <see cref="IClusterLog"/> and write to the store as before.
/// </summary>
internal static class ClusterServiceCollectionExtensions
{
    public static IServiceCollection AddCluster(this IServiceCollection services, IConfiguration configuration)
    {
        if (string.IsNullOrWhiteSpace(configuration.GetSection(ClusterOptions.SectionName)["Node"]))
        {
            return services;
        }

        services.AddSingleton(static provider => provider.GetRequiredService<IOptions<ClusterOptions>>().Value);
        services.AddSingleton<ClusterAppliedPositions>();
        services.AddSingleton<ClusterOutcomes>();
        services.AddSingleton<ClusterTopics>();
        services.AddSingleton<KafkaClusterLog>();
        services.AddSingleton<IClusterLog>(static provider => provider.GetRequiredService<KafkaClusterLog>());
        services.AddSingleton(static provider => new ClusterApplier(
            provider.GetRequiredService<ClusterOptions>(),
            provider.GetRequiredService<DocumentStore>(),
            provider.GetRequiredService<IOptions<BatchingOptions>>().Value,
            provider.GetRequiredService<ClusterAppliedPositions>(),
            provider.GetRequiredService<ClusterOutcomes>(),
            provider.GetServices<IClusterRecordHandler>(),
            provider.GetRequiredService<IOptions<SourcesOptions>>().Value,
            provider.GetRequiredService<ILoggerFactory>(),
            provider.GetRequiredService<TimeProvider>()));
        services.AddSingleton<Indexes.IndexClusterHandler>();
        services.AddSingleton<IClusterRecordHandler>(static provider => provider.GetRequiredService<Indexes.IndexClusterHandler>());
        AddHandler<Sources.DeadLetters.DeadLetterClusterHandler>(services);
        AddHandler<Sources.SourceResetClusterHandler>(services);
        AddHandler<Etl.EtlTaskClusterHandler>(services);
        AddHandler<Grafana.SavedQueryClusterHandler>(services);
        services.AddSingleton<ClusterService>();
        services.AddHostedService(static provider => provider.GetRequiredService<ClusterService>());
        return services;
    }

    /// <summary>A handler of admin writes: the applier finds it among the handlers, its endpoint by its type (for its outcomes).</summary>
    private static void AddHandler<THandler>(IServiceCollection services)
        where THandler : class, IClusterRecordHandler
    {
        services.AddSingleton<THandler>();
        services.AddSingleton<IClusterRecordHandler>(static provider => provider.GetRequiredService<THandler>());
    }
}
