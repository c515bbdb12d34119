using System.Text.Json;
using Ingest.Query.Syntax;

namespace Ingest.Server.Grafana;

/// <summary>A panel target ready to run: the parsed query (ad hoc filters added) and its parameters; <see cref="Origin"/> names a saved query's source in error messages.</summary>
internal sealed record ResolvedTarget(ParsedQuery Query, Dictionary<string, JsonElement> Parameters, string? Origin);
