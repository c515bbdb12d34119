using System.Text;

namespace Ingest.Cli.Output;

/// <summary>Columns padded to their widest cell, two spaces apart, the header underlined; long cells cut with "...".</summary>
internal static class TextTable
{
    public const int MaxCellWidth = 80;

    public static async Task WriteAsync(TextWriter output, IReadOnlyList<string> headers, IReadOnlyList<IReadOnlyList<string>> rows)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(headers);
        ArgumentNullException.ThrowIfNull(rows);
        var widths = headers.Select(h => Math.Min(h.Length, MaxCellWidth)).ToArray();
        foreach (var row in rows)
        {
            for (var c = 0; c < widths.Length && c < row.Count; c++)
            {
                widths[c] = Math.Max(widths[c], Math.Min(OneLine(row[c]).Length, MaxCellWidth));
            }
        }

        await output.WriteLineAsync(Line(headers, widths)).ConfigureAwait(false);
        await output.WriteLineAsync(Line([.. widths.Select(w => new string('-', w))], widths)).ConfigureAwait(false);
        foreach (var row in rows)
        {
            await output.WriteLineAsync(Line(row, widths)).ConfigureAwait(false);
        }
    }

    private static string Line(IReadOnlyList<string> cells, int[] widths)
    {
        var line = new StringBuilder();
        for (var c = 0; c < widths.Length; c++)
        {
            var cell = Fit(c < cells.Count ? OneLine(cells[c]) : string.Empty);
            line.Append(cell);
            if (c < widths.Length - 1)
            {
                line.Append(' ', widths[c] - cell.Length + 2);
            }
        }

        return line.ToString().TrimEnd();
    }

    private static string Fit(string cell) => cell.Length <= MaxCellWidth ? cell : string.Concat(cell.AsSpan(0, MaxCellWidth - 3), "...");

    private static string OneLine(string cell) => cell.Contains('\n', StringComparison.Ordinal) || cell.Contains('\r', StringComparison.Ordinal)
        ? cell.Replace("\r", "\\r", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal)
        : cell;
}
