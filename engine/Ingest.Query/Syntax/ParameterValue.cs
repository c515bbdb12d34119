namespace Ingest.Query.Syntax;

/// <summary><c>$name</c>: a JSON value passed beside the query; <paramref name="Name"/> without the <c>$</c>.</summary>
public sealed record ParameterValue(string Name, SourcePosition Position) : QueryValue(Position);
