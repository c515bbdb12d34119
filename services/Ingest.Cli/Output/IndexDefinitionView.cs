using System.Text.Json;

namespace Ingest.Cli.Output;

/// <summary>
/// An index definition (the JSON the server shows and PUT takes) as lines a person reads: its collections and fields,
/// and for a map-reduce index its group keys (<c>Hour = OrderedAt per 1h</c>) and aggregates (<c>Revenue = sum(Total)</c>).
/// </summary>
internal static class IndexDefinitionView
{
    public static IReadOnlyList<string> Lines(JsonElement definition)
    {
        var lines = new List<string>();
        var collections = definition.TryGetProperty("collections", out var c) && c.ValueKind == JsonValueKind.Array
            ? string.Join(", ", c.EnumerateArray().Select(static x => x.GetString()))
            : string.Empty;
        lines.Add($"collections: {collections}");
        var fields = definition.TryGetProperty("fields", out var f) && f.ValueKind == JsonValueKind.Array
            ? string.Join(", ", f.EnumerateArray().Select(Field))
            : string.Empty;
        lines.Add($"fields: {fields}");
        if (definition.TryGetProperty("reduce", out var reduce) && reduce.ValueKind == JsonValueKind.Object)
        {
            var keys = reduce.TryGetProperty("groupBy", out var g) && g.ValueKind == JsonValueKind.Array ? [.. g.EnumerateArray().Select(Key)] : new List<string>();
            lines.Add($"group by: {(keys.Count == 0 ? "nothing (one group)" : string.Join(", ", keys))}");
            var aggregates = reduce.TryGetProperty("aggregates", out var a) && a.ValueKind == JsonValueKind.Array ? string.Join(", ", a.EnumerateArray().Select(Aggregate)) : string.Empty;
            lines.Add($"aggregates: {aggregates}");
        }

        return lines;
    }

    private static string Field(JsonElement field)
    {
        var name = Text(field, "name");
        var path = Text(field, "path");
        return path.Length == 0 || path == name ? $"{name} ({Text(field, "type")})" : $"{name} ({Text(field, "type")}, from {path})";
    }

    private static string Key(JsonElement key)
    {
        var field = Text(key, "field");
        var name = Text(key, "name") is { Length: > 0 } n ? n : field;
        var interval = Text(key, "interval");
        return interval.Length > 0 ? $"{name} = {field} per {interval}" : name == field ? name : $"{name} = {field}";
    }

    private static string Aggregate(JsonElement aggregate)
    {
        var field = Text(aggregate, "field");
        return $"{Text(aggregate, "name")} = {Text(aggregate, "function")}{(field.Length > 0 ? $"({field})" : string.Empty)}";
    }

    private static string Text(JsonElement item, string property) =>
        item.TryGetProperty(property, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString()! : string.Empty;
}
