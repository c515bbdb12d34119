using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Ingest.Server.Telemetry;

/// <summary>The service's one <see cref="ActivitySource"/> and one <see cref="Meter"/>, both named <c>Ingest</c>.</summary>
public static class IngestTelemetry
{
    public const string Name = "Ingest";

    public static readonly ActivitySource ActivitySource = new(Name);

    public static readonly Meter Meter = new(Name);
}
