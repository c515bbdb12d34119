using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// A collection query answered by map-reduce index <paramref name="IndexName"/>: <paramref name="Query"/> is its
/// <c>from index</c> form, <paramref name="Reason"/> what explain says. With a <see cref="Plan"/>, the index's groups
/// are combined into the query's (<see cref="ReaggregatedQuery"/>) and <paramref name="Query"/> only names the index.
/// </summary>
internal sealed record CoveredQuery(ParsedQuery Query, string IndexName, string Reason)
{
    public ReaggregationPlan? Plan { get; init; }
}
