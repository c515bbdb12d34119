using System.Diagnostics.Metrics;
using Ingest.Documents;

namespace Ingest.Server.Telemetry;

/// <summary>
/// The document store's counters on the <c>Ingest</c> meter, read whenever a reader collects (a
/// scrape, an OTLP export). The meter comes from the host's <see cref="IMeterFactory"/>, so these
/// instruments, and the store they hold on to, go away with the host.
/// </summary>
internal sealed class StoreMetrics
{
    public const string Commits = "ingest.store.commits";
    public const string JournalSyncs = "ingest.store.journal.syncs";

    public StoreMetrics(IMeterFactory meters, DocumentStore store)
    {
        ArgumentNullException.ThrowIfNull(meters);
        ArgumentNullException.ThrowIfNull(store);
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableCounter(Commits, () => store.CommitCount, "{commit}", "Transactions the document store committed since the service started.");
        meter.CreateObservableCounter(JournalSyncs, () => store.JournalSyncCount, "{sync}", "Journal fsyncs since the service started (several commits can share one).");
    }
}
