namespace Ingest.Query.Syntax;

public sealed record FieldGroupBy(FieldRef Field, SourcePosition Position) : GroupByItem(Position);
