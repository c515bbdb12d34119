namespace Ingest.Benchmarks.Queries;

/// <summary>
/// A system answering the benchmark's queries over the generated orders. The orders arrive in chunks, the same chunks
/// for every system of a pass (<see cref="QueryPass"/>), so 10,000,000 of them never sit in memory at once.
/// </summary>
internal interface IQuerySystem : IDisposable
{
    string Name { get; }

    string Description { get; }

    /// <summary>Stores (and indexes) the next chunk of orders (not measured).</summary>
    void Add(OrderChunk chunk);

    /// <summary>After the last chunk: builds what the queries need (indexes, a merge) and waits until it is done (not measured).</summary>
    void Complete();

    /// <summary>
    /// The rows this system measures for a workload, each a <c>system</c> of the JSON (its <see cref="Name"/> for the
    /// query shapes; <c>ingest-query-time</c> for Ingest's aggregation at query time); empty when it does not answer it.
    /// </summary>
    IReadOnlyList<string> Rows(QueryWorkload workload);

    /// <summary>What one benchmark thread queries through (its own connection or reader).</summary>
    IQuerySession OpenSession();
}
