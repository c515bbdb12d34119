namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// When the benchmark's indexing loop closes a batch: the rules of the engine's <c>IndexingOptions</c> (memory
/// budget, maximum duration, optional document cap), with the same defaults.
/// </summary>
internal sealed record BatchLimits(long MemoryBudgetBytes, TimeSpan MaxDuration, int? MaxDocuments)
{
    /// <summary>Unbounded by count: a batch ends when the feed is exhausted, at 256 MiB or after 2 s.</summary>
    public static BatchLimits Unbounded { get; } = new(256L * 1024 * 1024, TimeSpan.FromSeconds(2), null);

    /// <summary>The same, capped at 4,096 documents per batch.</summary>
    public static BatchLimits Capped { get; } = Unbounded with { MaxDocuments = 4_096 };
}
