using System.Text;
using System.Text.Json;
using Ingest.Indexing.Definitions;

namespace Ingest.Server.Indexes;

/// <summary>
/// The indexes declared in configuration, bound from the <c>Ingest</c> section (<c>Ingest:Indexes:N</c>).
/// Each goes through the same parser and validator as a <c>PUT /indexes/{name}</c> body, so configuration and
/// HTTP accept exactly the same definitions; a problem is reported with the setting it sits in.
/// </summary>
public sealed class ConfiguredIndexesOptions
{
    public const string SectionName = "Ingest";
    public const string IndexesKey = "Ingest:Indexes";

    public List<ConfiguredIndex> Indexes { get; set; } = [];

    /// <summary>Every problem with the declared indexes, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        ToDefinitions(errors);
        return errors;
    }

    /// <summary>The declared definitions, in order; throws listing every problem when one is invalid.</summary>
    public IReadOnlyList<IndexDefinition> ToDefinitions()
    {
        var errors = new List<string>();
        var definitions = ToDefinitions(errors);
        return errors.Count == 0 ? definitions : throw new InvalidOperationException(string.Join(" ", errors));
    }

    private List<IndexDefinition> ToDefinitions(List<string> errors)
    {
        var definitions = new List<IndexDefinition>(Indexes.Count);
        var firstByName = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var i = 0; i < Indexes.Count; i++)
        {
            var result = IndexDefinitionJson.Parse(ToJson(Indexes[i]));
            foreach (var error in result.Errors)
            {
                errors.Add($"{SettingOf(i, error.Field)}: {error.Message}.");
            }

            if (result.Definition is not { } definition)
            {
                continue;
            }

            if (!firstByName.TryAdd(definition.Name, i))
            {
                errors.Add($"{IndexesKey}:{i}:Name: index '{definition.Name}' is already declared by {IndexesKey}:{firstByName[definition.Name]}.");
                continue;
            }

            definitions.Add(definition);
        }

        return definitions;
    }

    /// <summary>The declaration as the JSON body an HTTP client would send (members left out when not set).</summary>
    private static byte[] ToJson(ConfiguredIndex index)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            if (index.Name is not null)
            {
                writer.WriteString("name", index.Name);
            }

            writer.WriteStartArray("collections");
            foreach (var collection in index.Collections)
            {
                writer.WriteStringValue(collection);
            }

            writer.WriteEndArray();
            writer.WriteStartArray("fields");
            foreach (var field in index.Fields)
            {
                writer.WriteStartObject();
                WriteIfSet(writer, "name", field.Name);
                WriteIfSet(writer, "path", field.Path);
                WriteIfSet(writer, "type", field.Type);
                if (field.ExactCase)
                {
                    writer.WriteBoolean("exactCase", true);
                }

                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            if (index.Reduce is { } reduce)
            {
                WriteReduce(writer, reduce);
            }

            writer.WriteEndObject();
        }

        return buffer.ToArray();
    }

    private static void WriteReduce(Utf8JsonWriter writer, ConfiguredReduce reduce)
    {
        writer.WriteStartObject("reduce");
        writer.WriteStartArray("groupBy");
        foreach (var key in reduce.GroupBy)
        {
            writer.WriteStartObject();
            WriteIfSet(writer, "name", key.Name);
            WriteIfSet(writer, "field", key.Field);
            WriteIfSet(writer, "interval", key.Interval);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteStartArray("aggregates");
        foreach (var aggregate in reduce.Aggregates)
        {
            writer.WriteStartObject();
            WriteIfSet(writer, "name", aggregate.Name);
            WriteIfSet(writer, "function", aggregate.Function);
            WriteIfSet(writer, "field", aggregate.Field);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    private static void WriteIfSet(Utf8JsonWriter writer, string name, string? value)
    {
        if (value is not null)
        {
            writer.WriteString(name, value);
        }
    }

    /// <summary>A definition error's place in the body (<c>fields[2].type</c>) as a setting (<c>Ingest:Indexes:0:Fields:2:Type</c>).</summary>
    internal static string SettingOf(int index, string field)
    {
        var setting = new StringBuilder($"{IndexesKey}:{index}");
        if (field.StartsWith('$'))
        {
            // A JSON reader's path ("$" or "$.fields[0]"): drop the root marker.
            field = field.TrimStart('$').TrimStart('.');
            if (field.Length == 0)
            {
                return setting.ToString();
            }
        }

        setting.Append(':');

        var startOfPart = true;
        foreach (var c in field)
        {
            switch (c)
            {
                case '.' or '[':
                    setting.Append(':');
                    startOfPart = true;
                    break;
                case ']':
                    break;
                default:
                    setting.Append(startOfPart ? char.ToUpperInvariant(c) : c);
                    startOfPart = false;
                    break;
            }
        }

        return setting.ToString();
    }
}
