namespace Ingest.Benchmarks.Documents;

/// <summary>How much each documents workload does.</summary>
/// <param name="WarmupBatches">Batches each system puts into a throwaway store before put-batched is measured.</param>
internal sealed record DocumentsSizes(string Name, int Documents, int BatchSize, int Lookups, int ConcurrentWriters, int BatchesPerWriter, double MinScanSeconds, int WarmupBatches)
{
    /// <summary>The sizes: 1M documents in batches of 1,000.</summary>
    public static DocumentsSizes Full { get; } = new("full", 1_000_000, 1_000, 1_000_000, 64, 200, 3, 40);

    /// <summary>Under a minute for both systems on a 2-core VM.</summary>
    public static DocumentsSizes Quick { get; } = new("quick", 40_000, 1_000, 100_000, 64, 25, 0.5, 40);
}
