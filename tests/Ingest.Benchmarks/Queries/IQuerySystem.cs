using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Queries;

/// <summary>A system answering the benchmark's queries over the generated orders.</summary>
internal interface IQuerySystem : IDisposable
{
    string Name { get; }

    string Description { get; }

    /// <summary>Stores and indexes every order (not measured).</summary>
    void Load(OrderDataset data);

    /// <summary>What one benchmark thread queries through (its own connection or reader).</summary>
    IQuerySession OpenSession();
}
