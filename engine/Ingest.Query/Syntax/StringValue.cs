namespace Ingest.Query.Syntax;

/// <summary><c>'text'</c> (a quote inside is doubled: <c>'it''s'</c>); <paramref name="Value"/> is unescaped.</summary>
public sealed record StringValue(string Value, SourcePosition Position) : QueryValue(Position);
