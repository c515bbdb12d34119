using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Ingest.Server.Telemetry;

/// <summary>
/// Exports traces and metrics over OTLP when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set.
/// OpenTelemetry.Extensions.Hosting is not served by the registry here, so the SDK providers are
/// built directly and owned by the container, which disposes (and so flushes) them on shutdown.
/// </summary>
public static class TelemetryServiceCollectionExtensions
{
    public const string OtlpEndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    public static IServiceCollection AddIngestTelemetry(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        if (string.IsNullOrWhiteSpace(configuration[OtlpEndpointVariable]))
        {
            return services;
        }

        var serviceName = configuration["OTEL_SERVICE_NAME"] ?? "ingest";
        var resource = ResourceBuilder.CreateDefault().AddService(serviceName);
        services.AddSingleton(_ => Sdk.CreateTracerProviderBuilder()
            .SetResourceBuilder(resource)
            .AddSource(IngestTelemetry.Name, "Microsoft.AspNetCore")
            .AddOtlpExporter()
            .Build());
        services.AddSingleton(_ => Sdk.CreateMeterProviderBuilder()
            .SetResourceBuilder(resource)
            // ASP.NET Core and the runtime publish their own meters since .NET 8/9, which stands in
            // for the instrumentation packages the registry lacks.
            .AddMeter(IngestTelemetry.Name, "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Runtime")
            .AddOtlpExporter()
            .Build());
        services.AddHostedService<TelemetryStarter>();
        return services;
    }

    /// <summary>Resolves the providers at start-up so they listen from the first request on.</summary>
    private sealed class TelemetryStarter(TracerProvider tracer, MeterProvider meter) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            GC.KeepAlive(tracer);
            GC.KeepAlive(meter);
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
