namespace Ingest.Indexing.Definitions;

/// <summary>The wire names of <see cref="IndexFieldType"/>; read case-insensitively, written lower-case.</summary>
public static class IndexFieldTypeNames
{
    public const string Expected = "keyword, text, number, datetime, bool";

    public static string ToWire(IndexFieldType type) => type switch
    {
        IndexFieldType.Keyword => "keyword",
        IndexFieldType.Text => "text",
        IndexFieldType.Number => "number",
        IndexFieldType.DateTime => "datetime",
        IndexFieldType.Bool => "bool",
        _ => throw new ArgumentOutOfRangeException(nameof(type), type, "not a field type"),
    };

    public static bool TryParse(string text, out IndexFieldType type)
    {
        foreach (var candidate in Enum.GetValues<IndexFieldType>())
        {
            if (string.Equals(text, ToWire(candidate), StringComparison.OrdinalIgnoreCase))
            {
                type = candidate;
                return true;
            }
        }

        type = default;
        return false;
    }
}
