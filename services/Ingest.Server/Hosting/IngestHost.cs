using Ingest.Indexing.Runtime;
using Ingest.Server.Batching;
using Ingest.Server.Documents;
using Ingest.Server.Etl;
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

namespace Ingest.Server.Hosting;

/// <summary>Builds the web application: configuration, validated options, services and endpoints.</summary>
public static class IngestHost
{
    public static WebApplication Build(string[] args)
    {
        // appsettings.json is read from beside the binaries, so the service behaves the same from
        // any working directory; relative paths in settings (the data directory) still resolve
        // against the working directory, as a user typing them expects.
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });
        if (!ChoosesListenAddress(builder.Configuration))
        {
            builder.WebHost.UseUrls(HttpOptions.DefaultUrls);
        }

        builder.Services.AddOptions<IngestOptions>()
            .Bind(builder.Configuration.GetSection(IngestOptions.SectionName))
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddOptions<BatchingOptions>()
            .Bind(builder.Configuration.GetSection(BatchingOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<BatchingOptions>>(new SettingsValidator<BatchingOptions>(static o => o.Validate()));
        builder.Services.AddOptions<SourcesOptions>()
            .Bind(builder.Configuration.GetSection(SourcesOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<SourcesOptions>>(new SettingsValidator<SourcesOptions>(static o => o.Validate()));
        builder.Services.AddOptions<HttpOptions>()
            .Bind(builder.Configuration.GetSection(HttpOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<HttpOptions>>(new SettingsValidator<HttpOptions>(static o => o.Validate()));
        builder.Services.AddOptions<IndexingOptions>()
            .Bind(builder.Configuration.GetSection(IndexingSettings.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<IndexingOptions>>(new SettingsValidator<IndexingOptions>(IndexingSettings.Validate));
        builder.Services.AddOptions<ConfiguredIndexesOptions>()
            .Bind(builder.Configuration.GetSection(ConfiguredIndexesOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<ConfiguredIndexesOptions>>(new SettingsValidator<ConfiguredIndexesOptions>(static o => o.Validate()));
        builder.Services.AddOptions<AutoIndexOptions>()
            .Bind(builder.Configuration.GetSection(QuerySettings.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<AutoIndexOptions>>(new SettingsValidator<AutoIndexOptions>(QuerySettings.Validate));
        builder.Services.AddSingleton<IConfigureOptions<KestrelServerOptions>, KestrelLimits>();
        builder.Services.AddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<DataDirectory>();
        builder.Services.AddDocumentStore();
        builder.Services.AddQueryEngine();
        builder.Services.AddGrafana();
        builder.Services.AddSingleton<IngestionService>();
        builder.Services.AddHostedService(static provider => provider.GetRequiredService<IngestionService>());
        builder.Services.AddEtl(builder.Configuration);
        builder.Services.AddProblemDetails();
        builder.Services.AddExceptionHandler<ProblemExceptionHandler>();
        builder.Services.AddIngestTelemetry(builder.Configuration);
        builder.Logging.AddIngestConsoleFormat(builder.Configuration);

        var app = builder.Build();
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
        app.MapMetricsEndpoint();
        return app;
    }

    /// <summary>
    /// Whether configuration names where to listen: ASPNETCORE_URLS or URLS, --urls, a Urls setting,
    /// ASPNETCORE_HTTP_PORTS/HTTPS_PORTS or Kestrel:Endpoints. The default address is applied only
    /// when none does; a Urls in appsettings.json would hide ASPNETCORE_URLS, which ASP.NET reads first.
    /// </summary>
    internal static bool ChoosesListenAddress(IConfiguration configuration) =>
        !string.IsNullOrEmpty(configuration["urls"])
        || !string.IsNullOrEmpty(configuration["http_ports"])
        || !string.IsNullOrEmpty(configuration["https_ports"])
        || configuration.GetSection("Kestrel:Endpoints").Exists();

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
