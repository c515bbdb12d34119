using Ingest.Server.Hosting.Http.Security;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Ingest.Server.Telemetry;

/// <summary>
/// OpenTelemetry through the host (<c>AddOpenTelemetry()</c>): metrics are always collected and served
/// for Prometheus at <see cref="MetricsPath"/>; traces and metrics also go out over OTLP when
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set, and the exporter reads the other standard
/// <c>OTEL_*</c> variables (protocol, headers, timeouts, <c>OTEL_METRIC_EXPORT_INTERVAL</c>) itself.
/// </summary>
public static class TelemetryServiceCollectionExtensions
{
    public const string OtlpEndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";
    public const string ServiceNameVariable = "OTEL_SERVICE_NAME";
    public const string SamplerArgumentVariable = "OTEL_TRACES_SAMPLER_ARG";
    public const string MetricsPath = "/metrics";
    public const string DefaultServiceName = "ingest";

    public static IServiceCollection AddIngestTelemetry(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var exportOtlp = !string.IsNullOrWhiteSpace(configuration[OtlpEndpointVariable]);
        var telemetry = services.AddOpenTelemetry()
            .ConfigureResource(resource => resource.AddService(configuration[ServiceNameVariable] ?? DefaultServiceName))
            .WithMetrics(metrics =>
            {
                metrics.AddMeter(IngestTelemetry.Name)
                    .AddAspNetCoreInstrumentation()
                    .AddRuntimeInstrumentation()
                    .AddPrometheusExporter();
                if (exportOtlp)
                {
                    metrics.AddOtlpExporter();
                }
            });

        // Spans are only recorded when something receives them.
        if (exportOtlp)
        {
            var ratio = ReadSampleRatio(configuration);
            telemetry.WithTracing(tracing => tracing
                .AddSource(IngestTelemetry.Name)
                // Parent-based: a request or message that arrives sampled stays sampled; new traces by ratio.
                .SetSampler(new ParentBasedSampler(new TraceIdRatioBasedSampler(ratio)))
                // Health probes and scrapes arrive every few seconds and say nothing about the work.
                .AddAspNetCoreInstrumentation(options => options.Filter = static context => !IsProbe(context.Request.Path))
                .AddOtlpExporter());
        }

        services.AddSingleton<StoreMetrics>();
        services.AddSingleton<SourceMetrics>();
        services.AddSingleton<IndexMetrics>();
        return services;
    }

    /// <summary>Maps the Prometheus scrape endpoint (text exposition format) at <see cref="MetricsPath"/>.</summary>
    public static IEndpointRouteBuilder MapMetricsEndpoint(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapPrometheusScrapingEndpoint(MetricsPath).OpenToAnyone();
        return endpoints;
    }

    /// <summary>The ratio of new traces recorded, from <c>OTEL_TRACES_SAMPLER_ARG</c> (0 to 1; default 1, every trace).</summary>
    internal static double ReadSampleRatio(IConfiguration configuration)
    {
        var text = configuration[SamplerArgumentVariable];
        if (string.IsNullOrWhiteSpace(text))
        {
            return 1.0;
        }

        if (!double.TryParse(text, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out var ratio) || ratio is < 0 or > 1 || double.IsNaN(ratio))
        {
            throw new InvalidOperationException($"{SamplerArgumentVariable} must be a ratio from 0 to 1 (the share of new traces recorded), not '{text}'.");
        }

        return ratio;
    }

    private static bool IsProbe(PathString path) =>
        path.Equals(MetricsPath, StringComparison.Ordinal) || path.Equals("/alive", StringComparison.Ordinal) || path.Equals("/health", StringComparison.Ordinal);
}
