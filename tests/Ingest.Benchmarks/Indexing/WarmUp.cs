using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// Other orders each system builds and churns before it is measured, off the clock, in directories of its own: the
/// JIT compiles the hot paths there, not inside the first measurement (which, in a quick run, it would dominate).
/// </summary>
internal sealed record WarmUp(OrderDataset Data, ChurnPlan Churn)
{
    public const int Documents = 2_000;

    /// <summary>
    /// Tiered compilation counts calls only after a quiet spell and compiles optimized code in the background: one
    /// round left the first measurement running partly unoptimized code (the profile showed tier-0 frames), so two.
    /// </summary>
    public const int Rounds = 2;

    public static void LetTheJitCatchUp() => Thread.Sleep(TimeSpan.FromMilliseconds(500));
}
