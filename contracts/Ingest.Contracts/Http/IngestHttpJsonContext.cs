using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>Source-generated JSON for the HTTP API's bodies (camelCase), shared by the server and its clients.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(CollectionPage))]
[JsonSerializable(typeof(DocumentWriteResponse))]
[JsonSerializable(typeof(ReplayResponse))]
[JsonSerializable(typeof(DeadLetterPage))]
[JsonSerializable(typeof(DeadLetterEntry))]
[JsonSerializable(typeof(HealthResponse))]
[JsonSerializable(typeof(StatsResponse))]
[JsonSerializable(typeof(ClusterResponse))]
[JsonSerializable(typeof(ExpirationStatsEntry))]
[JsonSerializable(typeof(VerifyResponse))]
[JsonSerializable(typeof(IndexListResponse))]
[JsonSerializable(typeof(IndexDetailsResponse))]
[JsonSerializable(typeof(IndexPutResponse))]
[JsonSerializable(typeof(IndexDefinitionEntry))]
[JsonSerializable(typeof(SourceResetResponse))]
public sealed partial class IngestHttpJsonContext : JsonSerializerContext;
