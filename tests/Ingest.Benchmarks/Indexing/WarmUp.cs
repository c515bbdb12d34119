using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// Other orders each system builds and churns once before it is measured, off the clock, in a directory of its own:
/// the JIT compiles the hot paths there, not inside the first measurement (which, in a quick run, it would dominate).
/// </summary>
internal sealed record WarmUp(OrderDataset Data, ChurnPlan Churn)
{
    public const int Documents = 2_000;
}
