using System.Net;

namespace Ingest.Cli.Health;

/// <summary>What a server answered on <c>/health</c>.</summary>
/// <param name="StatusCode">The HTTP status of the answer.</param>
/// <param name="Status">The <c>status</c> the server reported (<c>healthy</c>, <c>unhealthy</c>, ...), or null when the answer had none.</param>
/// <param name="Details">The other top-level properties of the answer, as text, in the order the server sent them.</param>
internal sealed record HealthReport(HttpStatusCode StatusCode, string? Status, IReadOnlyList<KeyValuePair<string, string>> Details)
{
    public const string HealthyStatus = "healthy";

    public bool IsHealthy =>
        (int)StatusCode is >= 200 and < 300 && string.Equals(Status, HealthyStatus, StringComparison.OrdinalIgnoreCase);
}
