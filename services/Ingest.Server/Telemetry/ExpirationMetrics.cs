using System.Diagnostics.Metrics;
using Ingest.Server.Expiration;

namespace Ingest.Server.Telemetry;

/// <summary>The expiration task's counters on the <c>Ingest</c> meter (Prometheus: <c>ingest_expiration_documents_total</c>, ...).</summary>
internal sealed class ExpirationMetrics
{
    public const string Documents = "ingest.expiration.documents";
    public const string DeadLetters = "ingest.expiration.dead_letters";
    public const string Runs = "ingest.expiration.runs";
    public const string Failures = "ingest.expiration.failures";

    public ExpirationMetrics(IMeterFactory meters, ExpirationProgress progress)
    {
        ArgumentNullException.ThrowIfNull(meters);
        ArgumentNullException.ThrowIfNull(progress);
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableCounter(Documents, () => progress.Documents, "{document}", "Documents the expiration task deleted since the service started.");
        meter.CreateObservableCounter(DeadLetters, () => progress.DeadLetters, "{dead_letter}", "Dead letters the expiration task deleted since the service started.");
        meter.CreateObservableCounter(Runs, () => progress.Runs, "{run}", "Expiration runs finished since the service started.");
        meter.CreateObservableCounter(Failures, () => progress.Failures, "{run}", "Expiration runs that failed since the service started.");
    }
}
