namespace Ingest.Query.Syntax;

/// <summary>
/// One key of <c>order by</c>: a field, or in a grouped query an aggregate (<c>order by count() desc</c>); exactly one of
/// <paramref name="Field"/> and <paramref name="Aggregate"/> is set.
/// </summary>
public sealed record OrderByItem(FieldRef? Field, AggregateSelect? Aggregate, bool Descending, OrderByType Type, SourcePosition Position);
