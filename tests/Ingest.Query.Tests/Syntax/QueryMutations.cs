using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>Breaks a valid query text at random: a token dropped, repeated, swapped or replaced, the text cut, a character inserted or replaced.</summary>
internal static class QueryMutations
{
    /// <summary>Tokens and broken tokens to insert.</summary>
    public static readonly string[] TokenPool =
    [
        "(", ")", ",", "=", "!=", "<", ">=", ".", "[", "]", "[]", "and", "or", "not", "between", "in", "from", "index", "where",
        "group", "by", "order", "select", "as", "asc", "desc", "limit", "offset", "true", "null", "'x'", "''", "5", "-1.5e3",
        "$p", "$p0", "Total", "Status", "Notes", "OrderedAt", "\"Ship to\"", "`a b`", "id()", "Id", "count()", "sum(", "facet(", "ranges(", "time(", "foo(", "$",
        "'", "\"", "`", "-", "!", "#", "01", "1e999", "99999999999", "'5x'", "'2026-13-45'",
    ];

    public static string Mutate(string text, Random random)
    {
        var tokens = Tokens(text).Select(t => t.Source).ToList();
        var i = random.Next(tokens.Count);
        switch (random.Next(8))
        {
            case 0:
                tokens.RemoveAt(i);
                break;
            case 1:
                tokens.Insert(i, tokens[i]);
                break;
            case 2 when tokens.Count > 1:
                var j = Math.Min(i + 1, tokens.Count - 1);
                (tokens[i], tokens[j]) = (tokens[j], tokens[i]);
                break;
            case 3:
                tokens[i] = TokenPool[random.Next(TokenPool.Length)];
                break;
            case 4:
                tokens.Insert(i, TokenPool[random.Next(TokenPool.Length)]);
                break;
            case 5:
                return text[..random.Next(text.Length + 1)];
            case 6:
            {
                var at = random.Next(text.Length + 1);
                return text[..at] + (char)random.Next(0x10000) + text[at..];
            }

            default:
            {
                var at = random.Next(text.Length);
                return text[..at] + (char)random.Next(0x10000) + text[(at + 1)..];
            }
        }

        return string.Join(" ", tokens);
    }

    public static List<(Token Token, string Source)> Tokens(string text)
    {
        var lexer = new QueryLexer(text);
        var tokens = new List<(Token, string)>();
        for (var token = lexer.Next(); token.Kind != TokenKind.End; token = lexer.Next())
        {
            tokens.Add((token, text.Substring(token.Position.Offset, token.Length)));
        }

        return tokens;
    }
}
