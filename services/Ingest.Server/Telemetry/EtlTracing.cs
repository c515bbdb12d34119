using System.Diagnostics;
using System.Text;

namespace Ingest.Server.Telemetry;

/// <summary>
/// The span of each ETL batch, and the W3C <c>traceparent</c> it puts on every message it sends, so a consumer
/// downstream continues the trace.
/// </summary>
public static class EtlTracing
{
    public const string BatchActivityName = "etl batch";
    public const string TaskTag = "ingest.etl.task";

    internal static Activity? StartBatch(string task, int changes, long throughEtag)
    {
        // A batch is its own trace, not a child of whatever the task's loop started under.
        Activity.Current = null;
        var activity = IngestTelemetry.ActivitySource.StartActivity(BatchActivityName, ActivityKind.Producer);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(TaskTag, task);
            activity.SetTag("messaging.operation.type", "send");
            activity.SetTag("ingest.etl.batch.changes", changes);
            activity.SetTag("ingest.etl.batch.through_etag", throughEtag);
        }

        return activity;
    }

    internal static void Sent(Activity? activity, int messages, int failures)
    {
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(TelemetryTags.BatchMessageCount, messages);
            activity.SetTag("ingest.etl.batch.transform_failures", failures);
        }
    }

    /// <summary>The current span's <c>traceparent</c> in UTF-8 for Kafka messages, or null if no span is recorded.</summary>
    internal static byte[]? CurrentTraceParent() =>
        Activity.Current is { IdFormat: ActivityIdFormat.W3C } activity ? Encoding.UTF8.GetBytes(activity.Id!) : null;

    /// <summary>The current span's <c>traceparent</c> for an AMQP message, if a span is recorded.</summary>
    internal static void AddTraceParent(IDictionary<string, object?> headers)
    {
        if (Activity.Current is { IdFormat: ActivityIdFormat.W3C } activity)
        {
            headers[IngestTracing.TraceParentHeader] = activity.Id;
        }
    }
}
