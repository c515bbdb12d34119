namespace Ingest.Contracts.Http;

/// <summary>A source's batch and commit figures; percentiles are bucket upper bounds (powers of two).</summary>
public sealed record BatchingStatsEntry(
    long Batches,
    long Items,
    double AverageItems,
    long P50Items,
    long P99Items,
    BatchCloseCounts ClosedBy,
    double P50FirstItemAgeMs,
    double P99FirstItemAgeMs,
    long Commits,
    double P50CommitMs,
    double P99CommitMs,
    double MaxCommitMs,
    long ProducerWaits);
