using System.Text.Json.Serialization;

namespace Ingest.Server.Grafana;

/// <summary>Source-generated JSON for the saved queries (the file and the HTTP bodies).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow)]
[JsonSerializable(typeof(List<SavedQuery>))]
[JsonSerializable(typeof(SavedQuery))]
[JsonSerializable(typeof(SavedQueryBody))]
internal sealed partial class GrafanaJsonContext : JsonSerializerContext;
