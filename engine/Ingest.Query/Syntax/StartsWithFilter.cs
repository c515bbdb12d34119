namespace Ingest.Query.Syntax;

/// <summary><c>startsWith(Field, 'prefix')</c> on a keyword field.</summary>
public sealed record StartsWithFilter(FieldRef Field, QueryValue Prefix, SourcePosition Position) : QueryFilter(Position);
