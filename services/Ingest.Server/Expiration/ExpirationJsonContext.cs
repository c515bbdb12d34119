using System.Text.Json.Serialization;

namespace Ingest.Server.Expiration;

/// <summary>Source-generated JSON for the overrides file and the <c>/expiration</c> bodies (camelCase).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(RetentionOverridesFile))]
[JsonSerializable(typeof(ExpirationView))]
internal sealed partial class ExpirationJsonContext : JsonSerializerContext;
