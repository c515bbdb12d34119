namespace Ingest.Query.Syntax;

/// <summary>The reserved words of the language, matched case-insensitively.</summary>
internal static class QueryKeywords
{
    /// <summary>The keyword a bare identifier spells, or <see cref="TokenKind.Identifier"/> when it is none.</summary>
    public static TokenKind Classify(ReadOnlySpan<char> word) => word.Length switch
    {
        2 when Is(word, "or") => TokenKind.Or,
        2 when Is(word, "in") => TokenKind.In,
        2 when Is(word, "by") => TokenKind.By,
        2 when Is(word, "as") => TokenKind.As,
        3 when Is(word, "and") => TokenKind.And,
        3 when Is(word, "not") => TokenKind.Not,
        3 when Is(word, "asc") => TokenKind.Asc,
        4 when Is(word, "from") => TokenKind.From,
        4 when Is(word, "desc") => TokenKind.Desc,
        4 when Is(word, "true") => TokenKind.True,
        4 when Is(word, "null") => TokenKind.Null,
        5 when Is(word, "index") => TokenKind.Index,
        5 when Is(word, "where") => TokenKind.Where,
        5 when Is(word, "group") => TokenKind.Group,
        5 when Is(word, "order") => TokenKind.Order,
        5 when Is(word, "limit") => TokenKind.Limit,
        5 when Is(word, "false") => TokenKind.False,
        6 when Is(word, "offset") => TokenKind.Offset,
        6 when Is(word, "select") => TokenKind.Select,
        7 when Is(word, "between") => TokenKind.Between,
        _ => TokenKind.Identifier,
    };

    public static bool IsKeyword(ReadOnlySpan<char> word) => Classify(word) != TokenKind.Identifier;

    private static bool Is(ReadOnlySpan<char> word, string keyword) => word.Equals(keyword, StringComparison.OrdinalIgnoreCase);
}
