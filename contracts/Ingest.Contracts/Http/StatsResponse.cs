namespace Ingest.Contracts.Http;

/// <summary><c>GET /stats</c>: the store, its collections, the sources and the dead letter count.</summary>
public sealed record StatsResponse(
    StoreStatsEntry Store,
    IReadOnlyList<CollectionStatsEntry> Collections,
    IReadOnlyList<SourceStatsEntry> Sources,
    long DeadLetters);
