using Ingest.Indexing.Runtime;
using Ingest.Server.Batching;
using Ingest.Server.Cluster;
using Ingest.Server.WebConsole;
using Ingest.Server.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Expiration;
using Ingest.Server.Grafana;
using Ingest.Server.Indexes;
using Ingest.Query.AutoIndexes;
using Ingest.Server.Queries;
using Ingest.Server.Operations;
using Ingest.Server.Sources;
using Ingest.Server.Sources.DeadLetters;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;
using Ingest.Server.Telemetry;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Hosting.Https;

namespace Ingest.Server.Hosting;

/// <summary>Builds the web application: configuration, validated options, services and endpoints.</summary>
public static class IngestHost
{
    public static WebApplication Build(string[] args) => Build(args, configure: null);

    /// <summary>As <see cref="Build(string[])"/>, with <paramref name="configure"/> run on the builder last (tests add a log recorder this way).</summary>
    public static WebApplication Build(string[] args, Action<WebApplicationBuilder>? configure)
    {
        // appsettings.json is read from beside the binaries, so the service behaves the same from
        // any working directory; relative paths in settings (the data directory) still resolve
        // against the working directory, as a user typing them expects.
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });
        if (ListenAddresses.Choose(builder.Configuration) is { } urls)
        {
            builder.WebHost.UseUrls(urls);
        }

        builder.Services.AddOptions<IngestOptions>()
            .Bind(builder.Configuration.GetSection(IngestOptions.SectionName))
            .ValidateDataAnnotations()
            .ValidateOnStart();
        var configuration = builder.Configuration;
        builder.Services.AddValidatedSettings<BatchingOptions>(configuration.GetSection(BatchingOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<DocumentCompressionOptions>(configuration.GetSection(DocumentCompressionOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<ClusterOptions>(configuration.GetSection(ClusterOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<SourcesOptions>(configuration.GetSection(SourcesOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<HttpOptions>(configuration.GetSection(HttpOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<IndexingOptions>(configuration.GetSection(IndexingSettings.SectionName), IndexingSettings.Validate);
        builder.Services.AddValidatedSettings<ConfiguredIndexesOptions>(configuration.GetSection(ConfiguredIndexesOptions.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<StorageSettings>(configuration.GetSection(StorageSettings.SectionName), static o => o.Validate());
        builder.Services.AddValidatedSettings<AutoIndexOptions>(configuration.GetSection(QuerySettings.SectionName), QuerySettings.Validate);
        builder.Services.AddApiKeys();
        builder.Services.AddSingleton<IConfigureOptions<KestrelServerOptions>, KestrelLimits>();
        builder.Services.AddHttps(configuration);
        builder.Services.AddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<DataDirectory>();
        builder.Services.AddDocumentStore();
        builder.Services.AddQueryEngine();
        builder.Services.AddGrafana();
        builder.Services.AddSingleton<TaskOwnership>();
        builder.Services.AddSingleton<IngestionService>();
        builder.Services.AddHostedService(static provider => provider.GetRequiredService<IngestionService>());
        builder.Services.AddEtl(builder.Configuration);
        builder.Services.AddCluster(builder.Configuration);
        builder.Services.AddClusterMap();
        builder.Services.AddExpiration(builder.Configuration);
        builder.Services.AddProblemDetails();
        builder.Services.AddExceptionHandler<ProblemExceptionHandler>();
        builder.Services.AddIngestTelemetry(builder.Configuration);
        builder.Logging.AddIngestConsoleFormat(builder.Configuration);
        configure?.Invoke(builder);

        var app = builder.Build();
        app.UseStrictTransportSecurity();
        app.UseExceptionHandler();
        app.UseStatusCodePages();
        app.UseMiddleware<ApiKeyMiddleware>();
        app.MapHealthEndpoints();
        app.MapDocumentEndpoints();
        app.MapDeadLetterEndpoints();
        app.MapStatsEndpoints();
        app.MapAdminEndpoints();
        app.MapBackupEndpoints();
        app.MapSourceEndpoints();
        app.MapIndexEndpoints();
        app.MapQueryEndpoints();
        app.MapGrafanaEndpoints();
        app.MapEtlEndpoints();
        app.MapExpirationEndpoints();
        app.MapClusterDigestEndpoints();
        app.MapMetricsEndpoint();
        app.MapClusterEndpoints();
        app.MapConsole();
        return app;
    }

    /// <summary>
    /// Starts the application; settings are validated, the data directory locked, the store and the indexes opened
    /// (the configured ones applied) before it listens.
    /// </summary>
    public static async Task StartAsync(WebApplication app, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        app.Services.GetRequiredService<DataDirectory>();
        app.Services.GetRequiredService<Ingest.Documents.DocumentStore>();
        app.Services.GetRequiredService<StoreMetrics>();
        app.Services.GetRequiredService<SourceMetrics>();
        app.Services.GetRequiredService<IndexMetrics>();
        await app.Services.OpenQueryEngineAsync(cancellationToken).ConfigureAwait(false);
        await app.StartAsync(cancellationToken).ConfigureAwait(false);
    }
}
