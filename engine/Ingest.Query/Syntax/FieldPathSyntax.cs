using System.Text;

namespace Ingest.Query.Syntax;

/// <summary>
/// Field paths in the index path grammar (<c>Customer.Name</c>, <c>Lines[].Sku</c>, <c>"Ship to".Zip</c>), the form
/// <see cref="FieldRef.Path"/> takes: how the parser writes a segment and how the formatter reads one back.
/// </summary>
internal static class FieldPathSyntax
{
    /// <summary>Appends a segment's name, quoted only when the path grammar needs it.</summary>
    public static void AppendName(StringBuilder path, string name)
    {
        if (IsBarePathName(name))
        {
            path.Append(name);
            return;
        }

        AppendQuoted(path, name);
    }

    /// <summary><c>"name"</c> with <c>\"</c> and <c>\\</c>: quoted names are written alike in paths and in queries.</summary>
    public static void AppendQuoted(StringBuilder text, string name)
    {
        text.Append('"');
        foreach (var c in name)
        {
            if (c is '"' or '\\')
            {
                text.Append('\\');
            }

            text.Append(c);
        }

        text.Append('"');
    }

    /// <summary>Splits a path into its segments: the name and how many <c>[]</c> follow it.</summary>
    /// <exception cref="ArgumentException">The path is not in the grammar.</exception>
    public static List<(string Name, int Arrays)> Split(string path)
    {
        var segments = new List<(string, int)>();
        var i = 0;
        var name = new StringBuilder();
        while (true)
        {
            name.Clear();
            if (i < path.Length && path[i] == '"')
            {
                i++;
                while (i < path.Length && path[i] != '"')
                {
                    if (path[i] == '\\' && i + 1 < path.Length)
                    {
                        i++;
                    }

                    name.Append(path[i]);
                    i++;
                }

                if (i == path.Length)
                {
                    throw new ArgumentException($"unterminated quoted name in path '{path}'", nameof(path));
                }

                i++;
            }
            else
            {
                while (i < path.Length && path[i] is not ('.' or '['))
                {
                    name.Append(path[i]);
                    i++;
                }
            }

            if (name.Length == 0)
            {
                throw new ArgumentException($"empty segment in path '{path}'", nameof(path));
            }

            var arrays = 0;
            while (i + 1 < path.Length && path[i] == '[' && path[i + 1] == ']')
            {
                arrays++;
                i += 2;
            }

            segments.Add((name.ToString(), arrays));
            if (i == path.Length)
            {
                return segments;
            }

            if (path[i] != '.')
            {
                throw new ArgumentException($"expected '.' at {i} in path '{path}'", nameof(path));
            }

            i++;
        }
    }

    /// <summary>The path grammar's bare names: no <c>. [ ] " \</c>, whitespace or control characters.</summary>
    private static bool IsBarePathName(string name)
    {
        if (name.Length == 0)
        {
            return false;
        }

        foreach (var c in name)
        {
            if (c is '.' or '[' or ']' or '"' or '\\' || char.IsWhiteSpace(c) || char.IsControl(c))
            {
                return false;
            }
        }

        return true;
    }
}
