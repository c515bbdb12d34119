using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Ingest.Cli.Output;

/// <summary>
/// A <c>/queries</c> response as rows and columns: documents as their id and compact JSON, other rows by their
/// properties (in order of first appearance), plus what the response says about the index that answered.
/// </summary>
internal sealed class QueryResponseView
{
    private QueryResponseView(IReadOnlyList<string> columns, IReadOnlyList<IReadOnlyList<string>> rows, JsonElement root)
    {
        Columns = columns;
        Rows = rows;
        TotalResults = root.TryGetProperty("totalResults", out var total) && total.TryGetInt64(out var t) ? t : rows.Count;
        IndexName = root.TryGetProperty("indexName", out var index) && index.ValueKind == JsonValueKind.String ? index.GetString() : null;
        IsStale = root.TryGetProperty("isStale", out var stale) && stale.ValueKind == JsonValueKind.True;
        IndexCreated = root.TryGetProperty("indexCreated", out var created) && created.ValueKind == JsonValueKind.True;
        LastIndexedEtag = root.TryGetProperty("lastIndexedEtag", out var etag) && etag.TryGetInt64(out var e) ? e : 0;
        DurationMs = root.TryGetProperty("durationMs", out var duration) && duration.TryGetDouble(out var d) ? d : 0;
        Continuation = root.TryGetProperty("continuation", out var next) && next.ValueKind == JsonValueKind.String ? next.GetString() : null;
    }

    public IReadOnlyList<string> Columns { get; }

    public IReadOnlyList<IReadOnlyList<string>> Rows { get; }

    public long TotalResults { get; }

    public string? IndexName { get; }

    public bool IsStale { get; }

    public bool IndexCreated { get; }

    public long LastIndexedEtag { get; }

    public double DurationMs { get; }

    public string? Continuation { get; }

    public static QueryResponseView Parse(byte[] body)
    {
        using var document = JsonDocument.Parse(body);
        var root = document.RootElement;
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("results", out var results) || results.ValueKind != JsonValueKind.Array)
        {
            throw new CommandFailedException(ExitCodes.Failure, "the server's answer has no results array; is it an Ingest server?");
        }

        var columns = new List<string>();
        var rows = new List<IReadOnlyList<string>>();
        foreach (var row in results.EnumerateArray())
        {
            if (IsDocument(row))
            {
                rows.Add([Cell(row.GetProperty("id")), Cell(row.GetProperty("document"))]);
                AddColumns(columns, "id", "document");
                continue;
            }

            if (row.ValueKind != JsonValueKind.Object)
            {
                AddColumns(columns, "value");
                rows.Add(Place(columns, [("value", Cell(row))]));
                continue;
            }

            var cells = new List<(string Name, string Text)>();
            foreach (var property in row.EnumerateObject())
            {
                AddColumns(columns, property.Name);
                cells.Add((property.Name, Cell(property.Value)));
            }

            rows.Add(Place(columns, cells));
        }

        return new QueryResponseView(columns, rows, root.Clone());
    }

    /// <summary>One line about the answer: how many rows, from which index, stale or not, how long, how to get more.</summary>
    public string Summary()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{Rows.Count} of {TotalResults} {(TotalResults == 1 ? "result" : "results")}");
        if (IndexName is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $" from {(IndexName.StartsWith("collection/", StringComparison.Ordinal) ? IndexName : $"index '{IndexName}'")}");
        }

        if (IndexCreated)
        {
            text.Append(" (created for this query)");
        }

        if (IsStale)
        {
            text.Append(CultureInfo.InvariantCulture, $", stale (indexed up to etag {LastIndexedEtag})");
        }

        text.Append(CultureInfo.InvariantCulture, $" in {DurationMs:0.#} ms");
        if (Continuation is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $"; next page: --continuation {Continuation}");
        }

        return text.ToString();
    }

    private static bool IsDocument(JsonElement row) =>
        row.ValueKind == JsonValueKind.Object && row.TryGetProperty("id", out _) && row.TryGetProperty("document", out _) && row.TryGetProperty("etag", out _);

    private static void AddColumns(List<string> columns, params string[] names)
    {
        foreach (var name in names)
        {
            if (!columns.Contains(name, StringComparer.Ordinal))
            {
                columns.Add(name);
            }
        }
    }

    /// <summary>A row's cells in column order; a column the row lacks stays empty. Rows read before a new column appeared are padded when written.</summary>
    private static string[] Place(List<string> columns, List<(string Name, string Text)> cells)
    {
        var placed = new string[columns.Count];
        Array.Fill(placed, string.Empty);
        foreach (var (name, text) in cells)
        {
            placed[columns.IndexOf(name)] = text;
        }

        return placed;
    }

    private static string Cell(JsonElement value) => value.ValueKind switch
    {
        JsonValueKind.String => value.GetString()!,
        JsonValueKind.Null or JsonValueKind.Undefined => string.Empty,
        JsonValueKind.Object or JsonValueKind.Array => Compact(value),
        _ => value.GetRawText(),
    };

    private static string Compact(JsonElement value)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = false, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            value.WriteTo(writer);
        }

        return Encoding.UTF8.GetString(buffer.ToArray());
    }
}
