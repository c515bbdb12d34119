using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Indexing;

/// <summary>A system the Ingest index is compared with: it indexes the same orders' JSON (parsed on the clock) and applies the same churn.</summary>
internal interface IBaselineIndexer : IDisposable
{
    string Description { get; }

    /// <summary>Indexes every order from scratch and makes it durable once.</summary>
    void Build(OrderDataset data);

    /// <summary>Applies the churn's updates and deletes and makes them durable once.</summary>
    void Churn(OrderDataset data, ChurnPlan plan);

    /// <summary>The index's size on disk after the last durable point.</summary>
    long IndexBytes();
}
