using Ingest.Indexing.Definitions;

namespace Ingest.Query.Aggregation;

/// <summary>
/// <c>facet(F)</c> (<see cref="Ranges"/> null) or <c>facet(F, ranges(a, b, ...))</c>: ascending boundaries, giving the
/// ranges [-inf, a), [a, b), ..., [last, inf).
/// </summary>
internal sealed record BoundFacet(int Field, IndexFieldType Type, string Name, double[]? Ranges);
