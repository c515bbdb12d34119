using System.Diagnostics;

namespace Ingest.Cli.Publishing;

/// <summary>
/// The W3C <c>traceparent</c> each published message carries, so the service's batch spans link back to the publish
/// that fed them. While a publish span is recorded (<see cref="PublishTracing"/>) every message carries that span's
/// context, which a trace backend then holds; otherwise one random trace per run with a span id per message.
/// </summary>
internal static class PublishTraceContext
{
    public const string Header = "traceparent";

    /// <summary>The ActivitySource of the CLI's spans.</summary>
    public const string SourceName = "Ingest.Cli";

    internal static readonly ActivitySource Source = new(SourceName);

    /// <summary>The trace of this run when no publish span is recorded (the CLI publishes once per process).</summary>
    public static ActivityTraceId RunTraceId { get; } = ActivityTraceId.CreateRandom();

    /// <summary>A traceparent for the next message.</summary>
    public static string NextTraceParent() =>
        Activity.Current is { Recorded: true, IdFormat: ActivityIdFormat.W3C } publish && publish.Source == Source
            ? publish.Id!
            : $"00-{RunTraceId.ToHexString()}-{ActivitySpanId.CreateRandom().ToHexString()}-01";
}
