namespace Ingest.Query.Syntax;

/// <summary>A literal or a <c>$parameter</c> in a query.</summary>
public abstract record QueryValue(SourcePosition Position);
