namespace Ingest.Indexing.Runtime;

/// <summary>How the indexing loops cut their batches (bound from <c>Ingest:Indexing</c> by the server).</summary>
public sealed class IndexingOptions
{
    /// <summary>A batch ends when its buffers (terms, changes, work lists) would use this much memory.</summary>
    public long BatchMemoryBudgetBytes { get; set; } = 256L * 1024 * 1024;

    /// <summary>A batch ends after this long, so queries see progress during a long catch-up.</summary>
    public TimeSpan MaxBatchDuration { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>Null: batches are unbounded by count. A cap exists for benchmarks that compare against capped batches.</summary>
    public int? MaxBatchDocuments { get; set; }

    /// <summary>Throws when a value is out of range.</summary>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(BatchMemoryBudgetBytes, 64 * 1024, nameof(BatchMemoryBudgetBytes));
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(MaxBatchDuration, TimeSpan.Zero, nameof(MaxBatchDuration));
        if (MaxBatchDocuments is { } cap)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(cap, 1, nameof(MaxBatchDocuments));
        }
    }
}
