using System.Text.Json;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// Reads the checked-in budgets file:
/// <code>
/// { "budgets": [ { "path": "storage/point-read", "bytesPerOp": 8, "why": "0 B measured; +8 B margin" }, ... ] }
/// </code>
/// Anything else in an entry, a missing or negative budget, an empty why or a path listed twice is an error that names
/// the entry, so a mistyped budget never passes silently as "no budget".
/// </summary>
internal static class AllocationBudgetFile
{
    public static IReadOnlyList<AllocationBudget> Load(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        string json;
        try
        {
            json = File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new InvalidDataException($"allocation budgets file {path}: cannot be read: {e.Message}", e);
        }

        return Parse(json, path);
    }

    /// <param name="json">The file's text.</param>
    /// <param name="source">The file's name, for error messages.</param>
    public static IReadOnlyList<AllocationBudget> Parse(string json, string source)
    {
        ArgumentNullException.ThrowIfNull(json);
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json, new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"allocation budgets file {source}: not valid JSON (line {e.LineNumber + 1}): {e.Message}", e);
        }

        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object
                || !document.RootElement.TryGetProperty("budgets", out var list)
                || list.ValueKind != JsonValueKind.Array)
            {
                throw new InvalidDataException($"allocation budgets file {source}: expected an object with a \"budgets\" array.");
            }

            var budgets = new List<AllocationBudget>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            var index = 0;
            foreach (var entry in list.EnumerateArray())
            {
                var budget = ReadEntry(entry, source, index);
                if (!seen.Add(budget.Path))
                {
                    throw new InvalidDataException($"allocation budgets file {source}: entry {index} repeats the path {budget.Path}.");
                }

                budgets.Add(budget);
                index++;
            }

            return budgets;
        }
    }

    private static AllocationBudget ReadEntry(JsonElement entry, string source, int index)
    {
        string Problem(string what) => $"allocation budgets file {source}: entry {index}: {what}";
        if (entry.ValueKind != JsonValueKind.Object)
        {
            throw new InvalidDataException(Problem($"expected an object, found {entry.ValueKind}."));
        }

        string? path = null;
        double? bytes = null;
        string? why = null;
        foreach (var property in entry.EnumerateObject())
        {
            switch (property.Name)
            {
                case "path" when property.Value.ValueKind == JsonValueKind.String:
                    path = property.Value.GetString();
                    break;
                case "bytesPerOp" when property.Value.ValueKind == JsonValueKind.Number:
                    bytes = property.Value.GetDouble();
                    break;
                case "why" when property.Value.ValueKind == JsonValueKind.String:
                    why = property.Value.GetString();
                    break;
                default:
                    throw new InvalidDataException(Problem(
                        $"unexpected {property.Name} ({property.Value.ValueKind}); an entry has path (string), bytesPerOp (number) and why (string)."));
            }
        }

        if (string.IsNullOrWhiteSpace(path))
        {
            throw new InvalidDataException(Problem("has no path."));
        }

        if (bytes is not { } budget || budget < 0 || !double.IsFinite(budget))
        {
            throw new InvalidDataException(Problem($"{path} needs a bytesPerOp of 0 or more."));
        }

        if (string.IsNullOrWhiteSpace(why))
        {
            throw new InvalidDataException(Problem($"{path} needs a why: what it allocates and the margin."));
        }

        return new AllocationBudget(path, budget, why);
    }
}
