namespace Ingest.Query.Syntax;

/// <summary><c>Field between low and high</c>, both ends inclusive.</summary>
public sealed record BetweenFilter(FieldRef Field, QueryValue Low, QueryValue High, SourcePosition Position) : QueryFilter(Position);
