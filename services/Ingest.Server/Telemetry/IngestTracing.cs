using System.Diagnostics;
using System.Text;
using Ingest.Contracts.Messages;
using Ingest.Server.Batching;
using Ingest.Server.Sources;

namespace Ingest.Server.Telemetry;

/// <summary>
/// The span of each source batch: a root span (a batch has many parents) with a link to the producer span of
/// every message that carried a W3C <c>traceparent</c>. Nothing is parsed or allocated when no one records spans.
/// </summary>
public static class IngestTracing
{
    public const string TraceParentHeader = "traceparent";
    public const string TraceStateHeader = "tracestate";
    public const string BatchActivityName = "ingest batch";

    /// <summary>The item with its message's producer context attached, when spans are recorded and the header parses.</summary>
    internal static IngestItem WithProducer(IngestItem item, IMessageHeaders? headers)
    {
        if (headers is null || !IngestTelemetry.ActivitySource.HasListeners()
            || !headers.TryGetValue(TraceParentHeader, out var traceParent) || traceParent.IsEmpty)
        {
            return item;
        }

        string? traceState = headers.TryGetValue(TraceStateHeader, out var state) && !state.IsEmpty ? Encoding.UTF8.GetString(state) : null;
        return ActivityContext.TryParse(Encoding.UTF8.GetString(traceParent), traceState, isRemote: true, out var producer)
            ? item with { Producer = producer }
            : item;
    }

    /// <summary>Starts the span of one batch of <paramref name="source"/>; null when no one records it.</summary>
    internal static Activity? StartBatch(string source, Batch<IngestItem> batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (!IngestTelemetry.ActivitySource.HasListeners())
        {
            return null;
        }

        List<ActivityLink>? links = null;
        foreach (ref readonly var item in batch.Items)
        {
            if (item.Producer != default)
            {
                (links ??= []).Add(new ActivityLink(item.Producer));
            }
        }

        // A batch is its own trace: the writer loop's ambient activity (if any) is not its parent.
        Activity.Current = null;
        var activity = IngestTelemetry.ActivitySource.StartActivity(BatchActivityName, ActivityKind.Consumer, parentContext: default, links: links);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(TelemetryTags.Source, source);
            activity.SetTag("messaging.operation.type", "process");
            activity.SetTag(TelemetryTags.BatchMessageCount, batch.Count);
            activity.SetTag("ingest.batch.bytes", batch.Bytes);
            activity.SetTag("ingest.batch.close_reason", batch.CloseReason.ToString());
        }

        return activity;
    }

    /// <summary>Records the commit latency on the current batch span.</summary>
    internal static void BatchCommitted(TimeSpan commitLatency)
    {
        if (Activity.Current is { OperationName: BatchActivityName, IsAllDataRequested: true } activity)
        {
            activity.SetTag("ingest.batch.commit_latency_ms", commitLatency.TotalMilliseconds);
        }
    }
}
