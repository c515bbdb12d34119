namespace Ingest.Cli.Output;

/// <summary>RFC 4180 CSV: a header line, then one line per row; a cell with a comma, quote or line break is quoted.</summary>
internal static class CsvWriter
{
    public static async Task WriteAsync(TextWriter output, IReadOnlyList<string> headers, IReadOnlyList<IReadOnlyList<string>> rows)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(rows);
        await output.WriteAsync(Line(headers, headers.Count) + "\r\n").ConfigureAwait(false);
        foreach (var row in rows)
        {
            await output.WriteAsync(Line(row, headers.Count) + "\r\n").ConfigureAwait(false);
        }
    }

    private static string Line(IReadOnlyList<string> cells, int columns) =>
        string.Join(',', Enumerable.Range(0, columns).Select(c => Quote(c < cells.Count ? cells[c] : string.Empty)));

    private static string Quote(string cell) => cell.AsSpan().IndexOfAny(",\"\r\n") < 0
        ? cell
        : "\"" + cell.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
}
