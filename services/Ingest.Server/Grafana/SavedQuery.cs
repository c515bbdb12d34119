using System.Text.Json;

namespace Ingest.Server.Grafana;

/// <summary>
/// A named query a dashboard refers to instead of carrying its text: the query, default values of its
/// <c>$parameters</c> (a panel's payload overrides them) and a description shown in Grafana's metric list.
/// </summary>
public sealed record SavedQuery(string Name, string Query, IReadOnlyDictionary<string, JsonElement>? Parameters, string? Description);
