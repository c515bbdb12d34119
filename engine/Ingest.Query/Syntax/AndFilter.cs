namespace Ingest.Query.Syntax;

public sealed record AndFilter(QueryFilter Left, QueryFilter Right, SourcePosition Position) : QueryFilter(Position);
