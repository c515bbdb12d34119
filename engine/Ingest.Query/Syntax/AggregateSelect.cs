namespace Ingest.Query.Syntax;

/// <summary><c>count()</c>, <c>count(F)</c>, <c>sum(F)</c>, <c>avg(F)</c>, <c>min(F)</c>, <c>max(F)</c>. Field is null only for <c>count()</c>.</summary>
public sealed record AggregateSelect(AggregateFunction Function, FieldRef? Field, string Name, SourcePosition Position) : SelectItem(Name, Position);
