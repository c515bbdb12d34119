namespace Ingest.Query.Syntax;

/// <summary>
/// One token of a query. <paramref name="Length"/> is its length in the source text; <paramref name="Value"/> is the
/// unescaped name of an identifier or parameter (without <c>$</c>), the unescaped text of a string, or a number as written.
/// </summary>
internal readonly record struct Token(TokenKind Kind, SourcePosition Position, int Length, string? Value)
{
    public bool IsKeyword => Kind >= TokenKind.From;
}
