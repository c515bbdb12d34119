namespace Ingest.Contracts.Http;

/// <summary>Readiness (<c>GET /health</c>): healthy when the store is open and every source is connected.</summary>
/// <param name="Status">"healthy" or "unhealthy".</param>
/// <param name="Store">"open" or "closed".</param>
/// <param name="DataDirectory">The data directory's full path.</param>
/// <param name="Sources">Each configured source's connection.</param>
public sealed record HealthResponse(string Status, string Store, string DataDirectory, IReadOnlyList<SourceHealth> Sources);
