namespace Ingest.Contracts.Http;

/// <summary><c>GET /indexes</c>: every index, by name.</summary>
public sealed record IndexListResponse(IReadOnlyList<IndexSummaryEntry> Items);
