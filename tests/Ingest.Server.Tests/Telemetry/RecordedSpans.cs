using System.Collections.Concurrent;
using System.Diagnostics;
using Ingest.Server.Telemetry;

namespace Ingest.Server.Tests.Telemetry;

/// <summary>Records every finished span of the <c>Ingest</c> activity source in this process while alive.</summary>
internal sealed class RecordedSpans : IDisposable
{
    private readonly ConcurrentQueue<Activity> _stopped = new();
    private readonly ActivityListener _listener;

    public RecordedSpans()
    {
        _listener = new ActivityListener
        {
            ShouldListenTo = static source => source.Name == IngestTelemetry.Name,
            Sample = static (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = _stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(_listener);
    }

    /// <summary>Finished spans named <paramref name="name"/> whose tag <paramref name="tag"/> is <paramref name="value"/>.</summary>
    public List<Activity> Named(string name, string tag, string value) =>
        [.. _stopped.Where(a => a.OperationName == name && Equals(a.GetTagItem(tag)?.ToString(), value))];

    public void Dispose() => _listener.Dispose();
}
