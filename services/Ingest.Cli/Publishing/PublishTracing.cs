using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Ingest.Cli.Publishing;

/// <summary>
/// The span of one <c>ingest publish</c> run. It is exported over OTLP only when the standard
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> (or <c>OTEL_EXPORTER_OTLP_TRACES_ENDPOINT</c>) is set; the exporter reads the
/// other <c>OTEL_*</c> settings itself. Disposing ends the span and flushes the export before the process exits.
/// </summary>
internal sealed class PublishTracing : IDisposable
{
    private readonly TracerProvider? _provider;
    private readonly Activity? _activity;

    private PublishTracing(TracerProvider? provider, Activity? activity)
    {
        _provider = provider;
        _activity = activity;
    }

    public static PublishTracing Start(string destination, int documents)
    {
        var provider = ExportConfigured()
            ? Sdk.CreateTracerProviderBuilder()
                .ConfigureResource(resource => resource.AddService("ingest-cli"))
                .AddSource(PublishTraceContext.SourceName)
                .AddOtlpExporter()
                .Build()
            : null;
        var activity = PublishTraceContext.Source.StartActivity($"publish {destination}", ActivityKind.Producer);
        activity?.SetTag("messaging.operation.type", "send");
        activity?.SetTag("ingest.destination", destination);
        activity?.SetTag("messaging.batch.message_count", documents);
        return new PublishTracing(provider, activity);
    }

    public void Failed(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        _activity?.SetStatus(ActivityStatusCode.Error, error.Message);
    }

    public void Dispose()
    {
        _activity?.Dispose();
        _provider?.Dispose();
    }

    private static bool ExportConfigured() =>
        !string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("OTEL_EXPORTER_OTLP_ENDPOINT"))
        || !string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"));
}
