namespace Ingest.Query.Syntax;

/// <summary>
/// <c>facet(F)</c>: counts per value over the whole match set; <c>facet(F, ranges(a, b, c))</c>: counts per range
/// [-inf, a), [a, b), [b, c), [c, +inf). Ranges is empty for a value facet.
/// </summary>
public sealed record FacetSelect(FieldRef Field, IReadOnlyList<QueryValue> Ranges, string Name, SourcePosition Position) : SelectItem(Name, Position);
