using System.Diagnostics.Metrics;
using Ingest.Server.Etl;

namespace Ingest.Server.Telemetry;

/// <summary>
/// Each ETL task's lag, sends, errors and state on the <c>Ingest</c> meter (tag <c>task</c>), read
/// when a reader collects. The meter comes from the host's <see cref="IMeterFactory"/>.
/// </summary>
internal static class EtlMetrics
{
    public const string LagChanges = "ingest.etl.lag.changes";
    public const string LagSeconds = "ingest.etl.lag.seconds";
    public const string MessagesSent = "ingest.etl.messages.sent";
    public const string Errors = "ingest.etl.errors";
    public const string Retrying = "ingest.etl.retrying";

    public static void Register(IMeterFactory meters, Func<IReadOnlyList<EtlTaskRunner>> tasks)
    {
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableGauge(LagChanges, () => Measure(tasks, static s => s.LagChanges), "{change}", "Changes after the last one the broker acknowledged.");
        meter.CreateObservableGauge(LagSeconds, () => Measure(tasks, static s => s.LagSeconds), "s", "Age of the oldest change not sent yet.");
        meter.CreateObservableCounter(MessagesSent, () => Measure(tasks, static s => s.MessagesSent), "{message}", "Messages the broker acknowledged since the service started.");
        meter.CreateObservableGauge(Errors, () => Measure(tasks, static s => s.Errors), "{document}", "Documents the transform failed on, kept for retry.");
        meter.CreateObservableGauge(Retrying, () => Measure(tasks, static s => s.State == EtlTaskState.Retrying ? 1 : 0), "{task}", "1 while the task retries a failed send.");
    }

    private static IEnumerable<Measurement<T>> Measure<T>(Func<IReadOnlyList<EtlTaskRunner>> tasks, Func<EtlTaskStatus, T> read)
        where T : struct
    {
        foreach (var task in tasks())
        {
            yield return new Measurement<T>(read(task.GetStatus()), new KeyValuePair<string, object?>("task", task.Definition.Name));
        }
    }
}
