namespace Ingest.Query.Syntax;

/// <summary>
/// A query as written (syntax only: nothing is resolved against an index yet). Lists are empty, never null, when the
/// clause is absent. <see cref="Limit"/> and <see cref="Offset"/> are literals or parameters.
/// </summary>
public sealed record ParsedQuery(
    QuerySource Source,
    QueryFilter? Where,
    IReadOnlyList<GroupByItem> GroupBy,
    IReadOnlyList<SelectItem> Select,
    IReadOnlyList<OrderByItem> OrderBy,
    QueryValue? Limit,
    QueryValue? Offset);
