using System.Text.Json.Serialization;

namespace Ingest.Indexing.Definitions;

/// <summary>Unknown members are rejected so that a misspelt <c>colections</c> is an error, not a silently empty list.</summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow)]
[JsonSerializable(typeof(IndexDefinitionBody))]
internal sealed partial class IndexDefinitionJsonContext : JsonSerializerContext;
