namespace Ingest.Benchmarks.Indexing;

/// <summary>How much each indexing workload does.</summary>
/// <param name="Documents">Orders in the backlog.</param>
/// <param name="LoadBatch">Documents per write when the document store is loaded and churned (not measured).</param>
/// <param name="UpdatedPercent">Share of the orders the churn updates (two indexed fields each).</param>
/// <param name="DeletedPercent">Share of the orders the churn deletes (other orders than the updated ones).</param>
internal sealed record IndexingSizes(string Name, int Documents, int LoadBatch, int UpdatedPercent, int DeletedPercent)
{
    /// <summary>The sizes: a 1M-order backlog.</summary>
    public static IndexingSizes Full { get; } = new("full", 1_000_000, 1_000, 10, 5);

    /// <summary>Well under a minute for the three systems on a 2-core VM.</summary>
    public static IndexingSizes Quick { get; } = new("quick", 20_000, 1_000, 10, 5);
}
