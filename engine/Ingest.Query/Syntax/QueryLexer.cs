using System.Globalization;
using System.Text;

namespace Ingest.Query.Syntax;

/// <summary>
/// Splits query text into tokens on demand, tracking line and column (lines end at <c>\n</c>, <c>\r\n</c> or <c>\r</c>;
/// columns count UTF-16 characters from 1). Allocates only the strings a token carries: an identifier's or parameter's
/// name, a string's text, a number as written.
/// </summary>
internal sealed class QueryLexer
{
    private readonly string _text;
    private int _offset;
    private int _line = 1;
    private int _lineStart;

    public QueryLexer(string text)
    {
        _text = text;
    }

    public string Text => _text;

    /// <summary>The token's text as written, shortened for an error message.</summary>
    public string SourceText(Token token) => token.Kind == TokenKind.End
        ? ""
        : Shorten(_text.Substring(token.Position.Offset, Math.Min(token.Length, 41)));

    public Token Next()
    {
        SkipWhitespace();
        var start = _offset;
        var position = PositionAt(start);
        if (start == _text.Length)
        {
            return new Token(TokenKind.End, position, 0, null);
        }

        var c = _text[start];
        switch (c)
        {
            case '(':
                return Single(TokenKind.LeftParen, position);
            case ')':
                return Single(TokenKind.RightParen, position);
            case ',':
                return Single(TokenKind.Comma, position);
            case '.':
                return Single(TokenKind.Dot, position);
            case '[':
                return Single(TokenKind.LeftBracket, position);
            case ']':
                return Single(TokenKind.RightBracket, position);
            case '=':
                return Single(TokenKind.Equal, position);
            case '!':
                if (Peek(1) == '=')
                {
                    return Double(TokenKind.NotEqual, position);
                }

                throw new QueryException(position, "unexpected character '!'; did you mean '!='?");
            case '<':
                return Peek(1) == '=' ? Double(TokenKind.LessOrEqual, position) : Single(TokenKind.Less, position);
            case '>':
                return Peek(1) == '=' ? Double(TokenKind.GreaterOrEqual, position) : Single(TokenKind.Greater, position);
            case '\'':
                return ReadString(position);
            case '"':
                return ReadQuotedName(position);
            case '`':
                return ReadBacktickName(position);
            case '$':
                return ReadParameter(position);
            case '-':
            case >= '0' and <= '9':
                return ReadNumber(position);
            default:
                if (IdentifierStartLength(_text, start) > 0)
                {
                    return ReadIdentifier(position);
                }

                throw new QueryException(position, $"unexpected character {ShowCharacter(start)}");
        }
    }

    private Token Single(TokenKind kind, SourcePosition position)
    {
        _offset++;
        return new Token(kind, position, 1, null);
    }

    private Token Double(TokenKind kind, SourcePosition position)
    {
        _offset += 2;
        return new Token(kind, position, 2, null);
    }

    private char Peek(int ahead) => _offset + ahead < _text.Length ? _text[_offset + ahead] : '\0';

    private SourcePosition PositionAt(int offset) => new(offset, _line, offset - _lineStart + 1);

    private void SkipWhitespace()
    {
        while (_offset < _text.Length && char.IsWhiteSpace(_text[_offset]))
        {
            Advance();
        }
    }

    /// <summary>Moves past one character, counting line breaks.</summary>
    private void Advance()
    {
        var c = _text[_offset];
        _offset++;
        if (c == '\n' || (c == '\r' && (_offset == _text.Length || _text[_offset] != '\n')))
        {
            _line++;
            _lineStart = _offset;
        }
    }

    private Token ReadString(SourcePosition position)
    {
        _offset++; // opening quote
        var escapes = false;
        while (true)
        {
            if (_offset == _text.Length)
            {
                throw new QueryException(position, "unterminated string: expected a closing '");
            }

            if (_text[_offset] == '\'')
            {
                if (Peek(1) != '\'')
                {
                    break;
                }

                escapes = true;
                _offset += 2;
                continue;
            }

            Advance();
        }

        _offset++; // closing quote
        var inner = _text.Substring(position.Offset + 1, _offset - position.Offset - 2);
        return new Token(TokenKind.String, position, _offset - position.Offset, escapes ? inner.Replace("''", "'", StringComparison.Ordinal) : inner);
    }

    /// <summary><c>"name"</c> with <c>\"</c> and <c>\\</c>, as in the index path grammar.</summary>
    private Token ReadQuotedName(SourcePosition position)
    {
        _offset++;
        StringBuilder? unescaped = null;
        var runStart = _offset;
        while (true)
        {
            if (_offset == _text.Length)
            {
                throw new QueryException(position, "unterminated quoted name: expected a closing \"");
            }

            var c = _text[_offset];
            if (c == '"')
            {
                break;
            }

            if (c == '\\')
            {
                var next = Peek(1);
                if (next is not ('"' or '\\'))
                {
                    throw new QueryException(PositionAt(_offset), "expected '\\\"' or '\\\\' after '\\' in a quoted name");
                }

                unescaped ??= new StringBuilder();
                unescaped.Append(_text, runStart, _offset - runStart).Append(next);
                _offset += 2;
                runStart = _offset;
                continue;
            }

            Advance();
        }

        string name;
        if (unescaped == null)
        {
            name = _text.Substring(runStart, _offset - runStart);
        }
        else
        {
            name = unescaped.Append(_text, runStart, _offset - runStart).ToString();
        }

        _offset++;
        if (name.Length == 0)
        {
            throw new QueryException(position, "empty quoted name");
        }

        return new Token(TokenKind.QuotedIdentifier, position, _offset - position.Offset, name);
    }

    /// <summary><c>`name`</c>: everything up to the next backtick, no escapes (a name holding a backtick uses <c>"..."</c>).</summary>
    private Token ReadBacktickName(SourcePosition position)
    {
        _offset++;
        var start = _offset;
        while (true)
        {
            if (_offset == _text.Length)
            {
                throw new QueryException(position, "unterminated quoted name: expected a closing `");
            }

            if (_text[_offset] == '`')
            {
                break;
            }

            Advance();
        }

        var name = _text.Substring(start, _offset - start);
        _offset++;
        if (name.Length == 0)
        {
            throw new QueryException(position, "empty quoted name");
        }

        return new Token(TokenKind.QuotedIdentifier, position, _offset - position.Offset, name);
    }

    private Token ReadParameter(SourcePosition position)
    {
        _offset++;
        var start = _offset;
        while (_offset < _text.Length && IdentifierPartLength(_text, _offset) is var n and > 0)
        {
            _offset += n;
        }

        if (_offset == start)
        {
            throw new QueryException(position, "expected a parameter name after '$'");
        }

        return new Token(TokenKind.Parameter, position, _offset - position.Offset, _text.Substring(start, _offset - start));
    }

    /// <summary>A JSON number: <c>-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?</c>.</summary>
    private Token ReadNumber(SourcePosition position)
    {
        var start = _offset;
        if (_text[_offset] == '-')
        {
            _offset++;
            if (!IsDigit(Peek(0)))
            {
                throw new QueryException(position, "unexpected character '-'; a negative number is written -12.5");
            }
        }

        var integerStart = _offset;
        SkipDigits();
        var valid = !(_text[integerStart] == '0' && _offset - integerStart > 1);
        if (Peek(0) == '.')
        {
            _offset++;
            valid &= SkipDigits() > 0;
        }

        if (Peek(0) is 'e' or 'E')
        {
            _offset++;
            if (Peek(0) is '+' or '-')
            {
                _offset++;
            }

            valid &= SkipDigits() > 0;
        }

        var text = _text.Substring(start, _offset - start);
        if (!valid)
        {
            throw new QueryException(position, $"invalid number '{Shorten(text)}': numbers are written as in JSON (0, -12, 3.5, 1e9)");
        }

        var value = double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
        if (double.IsInfinity(value))
        {
            throw new QueryException(position, $"number '{Shorten(text)}' is out of range");
        }

        return new Token(TokenKind.Number, position, _offset - start, text);
    }

    private int SkipDigits()
    {
        var start = _offset;
        while (_offset < _text.Length && IsDigit(_text[_offset]))
        {
            _offset++;
        }

        return _offset - start;
    }

    private static bool IsDigit(char c) => c is >= '0' and <= '9';

    private Token ReadIdentifier(SourcePosition position)
    {
        var start = _offset;
        _offset += IdentifierStartLength(_text, _offset);
        while (_offset < _text.Length && IdentifierPartLength(_text, _offset) is var n and > 0)
        {
            _offset += n;
        }

        var word = _text.AsSpan(start, _offset - start);
        var kind = QueryKeywords.Classify(word);
        return new Token(kind, position, word.Length, kind == TokenKind.Identifier ? word.ToString() : null);
    }

    /// <summary>Characters (1, or 2 for a surrogate pair) of a letter, <c>_</c> or <c>@</c> at <paramref name="offset"/>; 0 if none.</summary>
    internal static int IdentifierStartLength(ReadOnlySpan<char> text, int offset)
    {
        var c = text[offset];
        if (c < 128)
        {
            return char.IsAsciiLetter(c) || c is '_' or '@' ? 1 : 0;
        }

        return DecodeRune(text, offset, out var rune) is var n and > 0 && Rune.IsLetter(rune) ? n : 0;
    }

    /// <summary>Like <see cref="IdentifierStartLength"/>, also taking digits and combining marks.</summary>
    internal static int IdentifierPartLength(ReadOnlySpan<char> text, int offset)
    {
        var c = text[offset];
        if (c < 128)
        {
            return char.IsAsciiLetterOrDigit(c) || c is '_' or '@' ? 1 : 0;
        }

        var n = DecodeRune(text, offset, out var rune);
        if (n == 0)
        {
            return 0;
        }

        return Rune.GetUnicodeCategory(rune) switch
        {
            UnicodeCategory.UppercaseLetter or UnicodeCategory.LowercaseLetter or UnicodeCategory.TitlecaseLetter
                or UnicodeCategory.ModifierLetter or UnicodeCategory.OtherLetter or UnicodeCategory.NonSpacingMark
                or UnicodeCategory.SpacingCombiningMark or UnicodeCategory.EnclosingMark or UnicodeCategory.DecimalDigitNumber => n,
            _ => 0,
        };
    }

    /// <summary>True when <paramref name="name"/> can be written bare: an identifier that is no keyword.</summary>
    internal static bool IsBareIdentifier(string name)
    {
        var i = name.Length == 0 ? 0 : IdentifierStartLength(name, 0);
        if (i == 0)
        {
            return false;
        }

        while (i < name.Length)
        {
            var n = IdentifierPartLength(name, i);
            if (n == 0)
            {
                return false;
            }

            i += n;
        }

        return !QueryKeywords.IsKeyword(name);
    }

    /// <summary>Decodes the character at <paramref name="offset"/>: its length, or 0 for a lone surrogate.</summary>
    private static int DecodeRune(ReadOnlySpan<char> text, int offset, out Rune rune) =>
        Rune.DecodeFromUtf16(text[offset..], out rune, out var consumed) == System.Buffers.OperationStatus.Done ? consumed : 0;

    private string ShowCharacter(int offset)
    {
        var n = DecodeRune(_text, offset, out var rune);
        if (n == 0)
        {
            return string.Create(CultureInfo.InvariantCulture, $"U+{(int)_text[offset]:X4}");
        }

        var category = Rune.GetUnicodeCategory(rune);
        var invisible = Rune.IsControl(rune) || Rune.IsWhiteSpace(rune) || category is UnicodeCategory.Format
            or UnicodeCategory.PrivateUse or UnicodeCategory.OtherNotAssigned or UnicodeCategory.LineSeparator or UnicodeCategory.ParagraphSeparator;
        return invisible ? string.Create(CultureInfo.InvariantCulture, $"U+{rune.Value:X4}") : $"'{rune}'";
    }

    /// <summary>At most 40 characters of a name or token for an error message.</summary>
    internal static string Shorten(string text) => text.Length <= 40 ? text : string.Concat(text.AsSpan(0, 37), "...");
}
