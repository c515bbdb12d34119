using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// The indexing loop's spans and counters on the <c>Ingest</c> activity source and meter (the server collects
/// both by that name). Tagged with <c>ingest.index</c>, so the indexes of several hosts in one process stay apart.
/// </summary>
public static class IndexingTelemetry
{
    public const string Name = "Ingest";
    public const string IndexTag = "ingest.index";
    public const string BatchActivityName = "index batch";
    public const string DocumentsIndexed = "ingest.index.documents.indexed";
    public const string BatchSize = "ingest.index.batch.size";
    public const string Errors = "ingest.index.errors";

    private static readonly ActivitySource Source = new(Name);
    private static readonly Meter Meter = new(Name);
    private static readonly Counter<long> IndexedCounter = Meter.CreateCounter<long>(
        DocumentsIndexed, "{document}", "Documents put into or removed from an index.");
    private static readonly Histogram<long> BatchSizeHistogram = Meter.CreateHistogram<long>(
        BatchSize, "{document}", "Documents per committed index batch.",
        advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = [1, 10, 100, 1_000, 10_000, 100_000] });
    private static readonly Counter<long> ErrorCounter = Meter.CreateCounter<long>(
        Errors, "{error}", "Times an index stopped with an error.");

    /// <summary>Starts the span of one index batch (null when nothing listens).</summary>
    internal static Activity? StartBatch(string index, int documents, long fromEtag, long throughEtag)
    {
        var activity = Source.StartActivity(BatchActivityName, ActivityKind.Internal);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(IndexTag, index);
            activity.SetTag("ingest.index.batch.documents", documents);
            activity.SetTag("ingest.index.batch.from_etag", fromEtag);
            activity.SetTag("ingest.index.batch.through_etag", throughEtag);
        }

        return activity;
    }

    internal static void RecordBatch(string index, int documents)
    {
        var tag = new KeyValuePair<string, object?>(IndexTag, index);
        IndexedCounter.Add(documents, tag);
        BatchSizeHistogram.Record(documents, tag);
    }

    internal static void RecordError(string index) => ErrorCounter.Add(1, new KeyValuePair<string, object?>(IndexTag, index));
}
