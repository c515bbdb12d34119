namespace Ingest.Server.Etl;

/// <summary>
/// How an ETL task batches and pipelines: a batch ends at <paramref name="MaxBatchBytes"/> of
/// messages or <paramref name="MaxBatchReadTime"/> of reading (no count limit), and at most
/// <paramref name="MaxBatchesInFlight"/> batches are handed to the broker unacknowledged. Their
/// product bounds what a crash makes the task send again.
/// </summary>
internal sealed record EtlPipelineLimits(long MaxBatchBytes, TimeSpan MaxBatchReadTime, int MaxBatchesInFlight)
{
    /// <summary>2 MiB batches, 8 in flight: at most 16 MiB sent again after a crash.</summary>
    public static EtlPipelineLimits Default { get; } = new(2L * 1024 * 1024, TimeSpan.FromMilliseconds(500), 8);
}
