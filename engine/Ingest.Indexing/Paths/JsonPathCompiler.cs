using System.Collections.Immutable;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text;

namespace Ingest.Indexing.Paths;

/// <summary>
/// Compiles a field's JSON path into steps. The grammar:
/// <code>
/// path    := segment ( '.' segment )*
/// segment := name ( '[]' )*                 each '[]' visits every element of an array
/// name    := bare | quoted
/// bare    := one or more characters other than . [ ] " \ and whitespace or control characters
/// quoted  := '"' ( any character but " and \ | '\"' | '\\' )+ '"'
/// </code>
/// Examples: <c>Customer.Name</c>, <c>Lines[].Product</c>, <c>Tags[]</c>, <c>A[].B[].C</c>, <c>Matrix[][]</c>,
/// <c>"Ship to"."Zip.Code"</c>. Names match JSON property names exactly (ordinal, case-sensitive), as JSON does.
/// Errors give a 0-based character position: <c>empty segment at 9</c>, <c>unexpected ']' at 5</c>.
/// </summary>
public static class JsonPathCompiler
{
    /// <summary>Bounds the extractor's recursion, which goes one level per step.</summary>
    public const int MaxSteps = 64;

    public static bool TryCompile(string text, [NotNullWhen(true)] out CompiledJsonPath? path, [NotNullWhen(false)] out JsonPathError? error)
    {
        path = null;
        var steps = ImmutableArray.CreateBuilder<JsonPathStep>();
        var name = new StringBuilder();
        var i = 0;
        if (text.Length == 0)
        {
            error = new JsonPathError("empty path", 0);
            return false;
        }

        while (true)
        {
            // A name is expected at i.
            name.Clear();
            if (!TryReadName(text, ref i, name, out error))
            {
                return false;
            }

            steps.Add(JsonPathStep.Property(name.ToString()));
            while (i < text.Length && text[i] == '[')
            {
                if (i + 1 >= text.Length || text[i + 1] != ']')
                {
                    error = new JsonPathError("expected ']'", i + 1);
                    return false;
                }

                steps.Add(JsonPathStep.Elements);
                i += 2;
            }

            if (steps.Count > MaxSteps)
            {
                error = new JsonPathError($"more than {MaxSteps} steps", i);
                return false;
            }

            if (i == text.Length)
            {
                break;
            }

            if (text[i] != '.')
            {
                error = text[i] == ']' ? Unexpected(text, i) : new JsonPathError("expected '.' or '[]'", i);
                return false;
            }

            i++;
        }

        path = new CompiledJsonPath(text, steps.ToImmutable());
        error = null;
        return true;
    }

    private static bool TryReadName(string text, ref int i, StringBuilder name, [NotNullWhen(false)] out JsonPathError? error)
    {
        error = null;
        if (i == text.Length || text[i] is '.' or '[')
        {
            error = new JsonPathError("empty segment", i);
            return false;
        }

        if (text[i] == '"')
        {
            var start = i;
            i++;
            while (true)
            {
                if (i == text.Length)
                {
                    error = new JsonPathError("unterminated quoted name", start);
                    return false;
                }

                var c = text[i];
                if (c == '"')
                {
                    break;
                }

                if (c == '\\')
                {
                    if (i + 1 == text.Length || text[i + 1] is not ('"' or '\\'))
                    {
                        error = new JsonPathError("expected '\\\"' or '\\\\' after '\\'", i);
                        return false;
                    }

                    i++;
                    c = text[i];
                }

                name.Append(c);
                i++;
            }

            if (name.Length == 0)
            {
                error = new JsonPathError("empty segment", start);
                return false;
            }

            i++; // closing quote
            return true;
        }

        while (i < text.Length && text[i] is not ('.' or '['))
        {
            var c = text[i];
            if (c is ']' or '"' or '\\' || char.IsWhiteSpace(c) || char.IsControl(c))
            {
                error = Unexpected(text, i);
                return false;
            }

            name.Append(c);
            i++;
        }

        return true;
    }

    private static JsonPathError Unexpected(string text, int i)
    {
        var c = text[i];
        var shown = char.IsControl(c) || char.IsWhiteSpace(c) && c != ' '
            ? "\\u" + ((int)c).ToString("x4", CultureInfo.InvariantCulture)
            : c.ToString();
        return new JsonPathError($"unexpected '{shown}'", i);
    }
}
