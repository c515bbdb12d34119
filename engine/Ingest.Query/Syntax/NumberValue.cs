namespace Ingest.Query.Syntax;

/// <summary>
/// A number in JSON syntax, optionally negative (<c>-12.5e3</c>). <paramref name="Text"/> keeps the digits as written so
/// integers beyond 2^53 are not rounded before the binder decides the field's type.
/// </summary>
public sealed record NumberValue(double Value, string Text, SourcePosition Position) : QueryValue(Position);
