using System.Diagnostics.Metrics;
using System.Globalization;
using Ingest.Server.Sources;

namespace Ingest.Server.Telemetry;

/// <summary>
/// Each source's consumption on the <c>Ingest</c> meter, read from its status when a reader collects;
/// tagged with <c>ingest.source</c> and <c>messaging.system</c>, lag also with the topic or queue and partition.
/// </summary>
internal sealed class SourceMetrics
{
    public const string Consumed = "messaging.client.consumed.messages";
    public const string Written = "ingest.source.operations.written";
    public const string DeadLetters = "ingest.source.dead_letters";
    public const string Lag = "ingest.source.lag";
    public const string Paused = "ingest.source.paused";
    public const string Connected = "ingest.source.connected";

    private readonly IngestionService _ingestion;

    public SourceMetrics(IMeterFactory meters, IngestionService ingestion)
    {
        ArgumentNullException.ThrowIfNull(meters);
        ArgumentNullException.ThrowIfNull(ingestion);
        _ingestion = ingestion;
        var meter = meters.Create(IngestTelemetry.Name);
        meter.CreateObservableCounter(Consumed, () => PerSource(static s => s.Consumed), "{message}", "Messages received from the broker, redeliveries included.");
        meter.CreateObservableCounter(Written, () => PerSource(static s => s.Written), "{operation}", "Puts and deletes made durable.");
        meter.CreateObservableCounter(DeadLetters, () => PerSource(static s => s.DeadLetters), "{message}", "Messages stored as dead letters.");
        meter.CreateObservableGauge(Lag, MeasureLag, "{message}", "Messages not durable yet: per Kafka partition the high watermark minus the stored offset; per queue the messages ready.");
        meter.CreateObservableGauge(Paused, () => PerSource(static s => s.Paused ? 1 : 0), "{source}", "1 while the source is paused because the store is behind.");
        meter.CreateObservableGauge(Connected, () => PerSource(static s => s.Connected ? 1 : 0), "{source}", "1 while the source has a working broker connection.");
    }

    private IEnumerable<Measurement<long>> PerSource(Func<SourceStatus, long> read)
    {
        foreach (var source in _ingestion.Sources)
        {
            var status = source.GetStatus();
            yield return new Measurement<long>(read(status), SourceTags(status));
        }
    }

    private IEnumerable<Measurement<long>> MeasureLag()
    {
        foreach (var source in _ingestion.Sources)
        {
            var status = source.GetStatus();
            foreach (var partition in status.Partitions)
            {
                if (partition.Lag is { } lag)
                {
                    yield return new Measurement<long>(
                        lag,
                        new KeyValuePair<string, object?>(TelemetryTags.Source, status.Name),
                        new KeyValuePair<string, object?>(TelemetryTags.MessagingSystem, status.Kind),
                        new KeyValuePair<string, object?>(TelemetryTags.Destination, partition.Name),
                        new KeyValuePair<string, object?>(TelemetryTags.Partition, partition.Partition.ToString(CultureInfo.InvariantCulture)));
                }
            }
        }
    }

    private static KeyValuePair<string, object?>[] SourceTags(SourceStatus status) =>
        [new(TelemetryTags.Source, status.Name), new(TelemetryTags.MessagingSystem, status.Kind)];
}
