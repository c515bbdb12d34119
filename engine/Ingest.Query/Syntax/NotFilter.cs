namespace Ingest.Query.Syntax;

/// <summary><c>not X</c>: the documents of the source that do not match X (documents missing the field included).</summary>
public sealed record NotFilter(QueryFilter Operand, SourcePosition Position) : QueryFilter(Position);
