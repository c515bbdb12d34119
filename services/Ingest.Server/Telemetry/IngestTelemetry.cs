using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Ingest.Server.Telemetry;

/// <summary>
/// The service's <see cref="ActivitySource"/> and <see cref="Meter"/>, both named <c>Ingest</c>.
/// Instruments that read a service's state are created on a meter of the same name from the host's
/// <c>IMeterFactory</c> instead (<see cref="StoreMetrics"/>), so they go away with the host.
/// </summary>
public static class IngestTelemetry
{
    public const string Name = "Ingest";

    public static readonly ActivitySource ActivitySource = new(Name);

    public static readonly Meter Meter = new(Name);
}
