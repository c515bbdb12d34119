using System.Diagnostics;

namespace Ingest.Cli.Publishing;

/// <summary>
/// The W3C <c>traceparent</c> each published message carries: one trace for the whole <c>ingest publish</c> run,
/// a span id per message, sampled, so the service's batch spans link back to the publish that fed them.
/// </summary>
internal static class PublishTraceContext
{
    public const string Header = "traceparent";

    /// <summary>The trace of this run (the CLI publishes once per process).</summary>
    public static ActivityTraceId RunTraceId { get; } = ActivityTraceId.CreateRandom();

    /// <summary>A traceparent for the next message: version 00, the run's trace id, a new span id, sampled.</summary>
    public static string NextTraceParent() => $"00-{RunTraceId.ToHexString()}-{ActivitySpanId.CreateRandom().ToHexString()}-01";
}
