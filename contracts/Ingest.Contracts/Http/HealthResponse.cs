namespace Ingest.Contracts.Http;

/// <summary>Readiness (<c>GET /health</c>): healthy when the store is open, every source is connected, no index is errored and no ETL task is retrying or errored.</summary>
/// <param name="Status">"healthy" or "unhealthy".</param>
/// <param name="Store">"open"; "closed"; "disk-full" (writes fail until space is freed, then it recovers by itself); or "damaged" (a page failed its checksum: see <paramref name="StoreError"/>, run <c>POST /admin/verify</c> or <c>ingest verify</c>).</param>
/// <param name="Indexes">Each index's state; an errored one (with its error) makes the service unhealthy.</param>
/// <param name="DataDirectory">The data directory's full path.</param>
/// <param name="Sources">Each configured source's connection.</param>
/// <param name="Etl">Each ETL task's state; one that is retrying (its broker fails) or errored makes the service unhealthy, as a disconnected source does.</param>
/// <param name="StoreError">Why the store is not "open" (the full disk, or the damaged page's file and offset); null when it is.</param>
public sealed record HealthResponse(string Status, string Store, string DataDirectory, IReadOnlyList<SourceHealth> Sources, string? StoreError = null, IReadOnlyList<IndexHealth>? Indexes = null, IReadOnlyList<EtlTaskHealth>? Etl = null);
