using Ingest.Indexing.Definitions;

namespace Ingest.Query.Aggregation;

/// <summary>
/// <c>facet(F)</c> (<see cref="Ranges"/> null) or <c>facet(F, ranges(a, b, ...))</c>: ascending boundaries, giving the
/// ranges [-inf, a), [a, b), ..., [last, inf). <see cref="SingleValued"/>: the field's path has no <c>[]</c>, so a
/// document holds at most one value and its column value is all of them.
/// </summary>
internal sealed record BoundFacet(int Field, IndexFieldType Type, string Name, double[]? Ranges, bool SingleValued);
