using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Storage;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// The durable list of indexes (<c>catalog.json</c> in the indexes directory): for each, which generation directory
/// is current and which, if any, is being built, with both definitions. Replaced whole: written to a temporary file,
/// synced, renamed over the old one and the directory synced, so after a crash it is either the old or the new
/// catalog, never a mix or neither.
/// <code>
/// { "indexes": [ { "name": "Orders/ByCustomer", "generation": 3, "definition": { ... },
///                  "pendingGeneration": 4, "pendingDefinition": { ... } } ] }
/// </code>
/// </summary>
internal static class IndexCatalog
{
    public const string FileName = "catalog.json";

    public static List<IndexCatalogEntry> Read(string directory)
    {
        var path = Path.Combine(directory, FileName);
        var entries = new List<IndexCatalogEntry>();
        if (!File.Exists(path))
        {
            return entries;
        }

        using var json = JsonDocument.Parse(File.ReadAllBytes(path));
        foreach (var item in json.RootElement.GetProperty("indexes").EnumerateArray())
        {
            var definition = ParseDefinition(item.GetProperty("definition"), path);
            long? pending = null;
            IndexDefinition? pendingDefinition = null;
            if (item.TryGetProperty("pendingGeneration", out var p) && p.ValueKind == JsonValueKind.Number)
            {
                pending = p.GetInt64();
                pendingDefinition = ParseDefinition(item.GetProperty("pendingDefinition"), path);
            }

            entries.Add(new IndexCatalogEntry(item.GetProperty("name").GetString()!, item.GetProperty("generation").GetInt64(), definition, pending, pendingDefinition));
        }

        return entries;
    }

    public static void Write(string directory, IEnumerable<IndexCatalogEntry> entries)
    {
        using (var file = DurableFileWriter.Create(Path.Combine(directory, FileName)))
        {
            using (var writer = new Utf8JsonWriter(file.Stream, new JsonWriterOptions { Indented = true }))
            {
                writer.WriteStartObject();
                writer.WriteStartArray("indexes");
                foreach (var entry in entries)
                {
                    writer.WriteStartObject();
                    writer.WriteString("name", entry.Name);
                    writer.WriteNumber("generation", entry.Generation);
                    writer.WritePropertyName("definition");
                    writer.WriteRawValue(IndexDefinitionJson.ToUtf8(entry.Definition), skipInputValidation: true);
                    if (entry.PendingGeneration is { } pending && entry.PendingDefinition != null)
                    {
                        writer.WriteNumber("pendingGeneration", pending);
                        writer.WritePropertyName("pendingDefinition");
                        writer.WriteRawValue(IndexDefinitionJson.ToUtf8(entry.PendingDefinition), skipInputValidation: true);
                    }

                    writer.WriteEndObject();
                }

                writer.WriteEndArray();
                writer.WriteEndObject();
            }

            file.Commit();
        }
    }

    private static IndexDefinition ParseDefinition(JsonElement element, string path)
    {
        var parsed = IndexDefinitionJson.Parse(System.Text.Encoding.UTF8.GetBytes(element.GetRawText()));
        return parsed.Definition
            ?? throw new InvalidDataException($"The index catalog '{path}' holds an invalid definition: {string.Join("; ", parsed.Errors.Select(e => e.Field + ": " + e.Message))}");
    }
}
