using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>A collection query answered by map-reduce index <paramref name="IndexName"/>: <paramref name="Query"/> is its <c>from index</c> form, <paramref name="Reason"/> what explain says.</summary>
internal sealed record CoveredQuery(ParsedQuery Query, string IndexName, string Reason);
