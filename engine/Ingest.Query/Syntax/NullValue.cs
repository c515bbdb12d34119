namespace Ingest.Query.Syntax;

/// <summary><c>null</c>: <c>Field = null</c> matches a missing or null field; <c>Field != null</c> is <c>exists(Field)</c>.</summary>
public sealed record NullValue(SourcePosition Position) : QueryValue(Position);
