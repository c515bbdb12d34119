namespace Ingest.Query.Syntax;

public abstract record GroupByItem(SourcePosition Position);
