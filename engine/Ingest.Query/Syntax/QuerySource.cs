namespace Ingest.Query.Syntax;

/// <summary>What follows <c>from</c>: a collection name or an index name.</summary>
public sealed record QuerySource(QuerySourceKind Kind, string Name, SourcePosition Position);
