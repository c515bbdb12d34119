using System.Text.Json;

namespace Ingest.Server.Grafana;

/// <summary>
/// One query of a panel: its <c>refId</c>, the <c>target</c> (query text, a saved query's name or a collection name)
/// and the <c>payload</c> object (variables already substituted by Grafana), or null when the panel sent none.
/// </summary>
internal sealed record GrafanaTarget(string RefId, string Target, JsonElement? Payload);
