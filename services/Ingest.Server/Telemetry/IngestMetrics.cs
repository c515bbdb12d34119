using System.Diagnostics.Metrics;
using Ingest.Server.Batching;

namespace Ingest.Server.Telemetry;

/// <summary>
/// The instruments recorded as work happens (the rest are read from state when a reader collects):
/// each source batch's size and commit latency, tagged with the source's name. The batch's span is
/// <see cref="IngestTracing"/>'s.
/// </summary>
public static class IngestMetrics
{
    public const string BatchSize = "ingest.batch.size";
    public const string BatchBytes = "ingest.batch.bytes";
    public const string CommitDuration = "ingest.batch.commit.duration";

    private static readonly Histogram<long> BatchSizeHistogram = IngestTelemetry.Meter.CreateHistogram<long>(
        BatchSize, "{message}", "Messages per batch a source wrote to the store.",
        advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = [1, 10, 100, 500, 1_000, 5_000, 10_000, 50_000] });

    private static readonly Histogram<long> BatchBytesHistogram = IngestTelemetry.Meter.CreateHistogram<long>(
        BatchBytes, "By", "Bytes per batch a source wrote to the store (as the batcher weighs them).",
        advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = [1_024, 16_384, 131_072, 1_048_576, 4_194_304, 16_777_216, 67_108_864] });

    private static readonly Histogram<double> CommitDurationHistogram = IngestTelemetry.Meter.CreateHistogram<double>(
        CommitDuration, "s", "Time from handing a batch to the store until it was durable.",
        advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] });

    /// <summary>One batch of <paramref name="source"/> is durable.</summary>
    public static void BatchCommitted<TItem>(string source, Batch<TItem> batch, TimeSpan commitLatency)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var tag = new KeyValuePair<string, object?>(TelemetryTags.Source, source);
        BatchSizeHistogram.Record(batch.Count, tag);
        BatchBytesHistogram.Record(batch.Bytes, tag);
        CommitDurationHistogram.Record(commitLatency.TotalSeconds, tag);
        IngestTracing.BatchCommitted(commitLatency);
    }
}
