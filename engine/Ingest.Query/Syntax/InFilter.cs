namespace Ingest.Query.Syntax;

/// <summary><c>Field in (v1, v2, ...)</c>: at least one value; a parameter holding a JSON array expands to its elements.</summary>
public sealed record InFilter(FieldRef Field, IReadOnlyList<QueryValue> Values, SourcePosition Position) : QueryFilter(Position);
