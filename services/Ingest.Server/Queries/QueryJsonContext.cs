using System.Text.Json.Serialization;
using Ingest.Query.Execution;

namespace Ingest.Server.Queries;

/// <summary>Source-generated JSON for what the query endpoints serialize whole (the plan); results are streamed by hand.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(string))]
[JsonSerializable(typeof(QueryExplainResponse))]
internal sealed partial class QueryJsonContext : JsonSerializerContext;
