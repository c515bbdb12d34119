using System.Diagnostics.Metrics;
using Ingest.Indexing.Runtime;
using Ingest.Query;

namespace Ingest.Server.Telemetry;

/// <summary>
/// Each index's staleness and state on the <c>Ingest</c> meter (tag <c>ingest.index</c>), read when a reader
/// collects; the documents indexed, batch sizes and errors are counted by the indexing loop itself
/// (<see cref="IndexingTelemetry"/>).
/// </summary>
internal sealed class IndexMetrics
{
    public const string StalenessEtags = "ingest.index.staleness.etags";
    public const string StalenessSeconds = "ingest.index.staleness.seconds";
    public const string Entries = "ingest.index.entries";
    public const string Errored = "ingest.index.errored";

    private readonly QueryEngine _engine;
    private readonly TimeProvider _time;

    public IndexMetrics(IMeterFactory meters, QueryEngine engine, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(meters);
        ArgumentNullException.ThrowIfNull(engine);
        ArgumentNullException.ThrowIfNull(time);
        _engine = engine;
        _time = time;
        var opened = time.GetUtcNow().UtcDateTime;
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableGauge(
            StalenessEtags, () => PerIndex(static s => Math.Max(0, s.CollectionsLastEtag - s.LastIndexedEtag)), "{etag}",
            "Etags the index is behind its collections' last change.");
        meter.CreateObservableGauge(
            StalenessSeconds, () => PerIndex(s => SecondsBehind(s, opened)), "s",
            "While the index is behind: seconds since it last committed a batch (since the service started if none); 0 when up to date.");
        meter.CreateObservableGauge(Entries, () => PerIndex(static s => s.EntryCount), "{document}", "Documents in the index.");
        meter.CreateObservableGauge(Errored, () => PerIndex(static s => s.State == IndexState.Errored ? 1 : 0), "{index}", "1 while the index is stopped by an error.");
    }

    private double SecondsBehind(IndexStatus status, DateTime opened)
    {
        if (!status.IsStale)
        {
            return 0;
        }

        var since = status.LastBatchAt ?? opened;
        return Math.Max(0, (_time.GetUtcNow().UtcDateTime - since).TotalSeconds);
    }

    private IEnumerable<Measurement<T>> PerIndex<T>(Func<IndexStatus, T> read)
        where T : struct
    {
        if (!_engine.TryGetIndexes(out var indexes))
        {
            yield break;
        }

        foreach (var status in indexes.GetStatuses())
        {
            yield return new Measurement<T>(read(status), new KeyValuePair<string, object?>(TelemetryTags.Index, status.Definition.Name));
        }
    }
}
