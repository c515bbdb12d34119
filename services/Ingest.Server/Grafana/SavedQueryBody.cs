using System.Text.Json;

namespace Ingest.Server.Grafana;

/// <summary>The body of <c>PUT /grafana/queries/{name}</c>.</summary>
internal sealed class SavedQueryBody
{
    public string? Query { get; set; }

    public Dictionary<string, JsonElement>? Parameters { get; set; }

    public string? Description { get; set; }
}
