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
    public const string JournalBytes = "ingest.store.journal.bytes";
    public const string DataFileSize = "ingest.store.data_file.size";
    public const string FlushBacklog = "ingest.store.flush.backlog";
    public const string OpenTransactions = "ingest.store.transactions.open";
    public const string LastEtag = "ingest.store.last_etag";

    public StoreMetrics(IMeterFactory meters, DocumentStore store)
    {
        ArgumentNullException.ThrowIfNull(meters);
        ArgumentNullException.ThrowIfNull(store);
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableCounter(Commits, () => store.CommitCount, "{commit}", "Transactions the document store committed since the service started.");
        meter.CreateObservableCounter(JournalSyncs, () => store.JournalSyncCount, "{sync}", "Journal fsyncs since the service started (several commits can share one).");
        meter.CreateObservableCounter(JournalBytes, () => store.JournalBytesWritten, "By", "Bytes written to the journal since the service started.");
        meter.CreateObservableGauge(DataFileSize, () => store.DataFileBytes, "By", "Size of the store's data file.");
        meter.CreateObservableGauge(FlushBacklog, () => store.FlushBacklogPages, "{page}", "Committed pages the background flusher has not written to the data file yet.");
        meter.CreateObservableGauge(OpenTransactions, () => store.OpenTransactionCount, "{transaction}", "Storage transactions open now (read snapshots and the writer).");
        meter.CreateObservableGauge(LastEtag, () => store.LastEtag, "{etag}", "Etag of the last committed put or delete.");
    }
}
