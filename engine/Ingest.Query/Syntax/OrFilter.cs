namespace Ingest.Query.Syntax;

public sealed record OrFilter(QueryFilter Left, QueryFilter Right, SourcePosition Position) : QueryFilter(Position);
