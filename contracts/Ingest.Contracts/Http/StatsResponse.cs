namespace Ingest.Contracts.Http;

/// <summary><c>GET /stats</c>: the store, its collections, the sources, the dead letter count each index's summary, each ETL task's progress and the expiration task's.</summary>
public sealed record StatsResponse(
    StoreStatsEntry Store,
    IReadOnlyList<CollectionStatsEntry> Collections,
    IReadOnlyList<SourceStatsEntry> Sources,
    long DeadLetters,
    IReadOnlyList<IndexSummaryEntry>? Indexes = null,
    IReadOnlyList<EtlTaskStatsEntry>? Etl = null,
    ExpirationStatsEntry? Expiration = null);
