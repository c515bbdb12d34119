namespace Ingest.Query.Syntax;

/// <summary><c>Field op value</c>. The value is always on the right (<c>5 &lt; Total</c> is a syntax error).</summary>
public sealed record ComparisonFilter(FieldRef Field, ComparisonOperator Operator, QueryValue Value, SourcePosition Position) : QueryFilter(Position);
