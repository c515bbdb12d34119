namespace Ingest.Query.Syntax;

public sealed record BoolValue(bool Value, SourcePosition Position) : QueryValue(Position);
