using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;

namespace Ingest.Query;

/// <summary>How a <see cref="QueryEngine"/> runs its indexes and keeps its automatic ones.</summary>
public sealed record QueryEngineOptions
{
    public IndexingOptions Indexing { get; init; } = new();

    public AutoIndexOptions AutoIndexes { get; init; } = new();
}
