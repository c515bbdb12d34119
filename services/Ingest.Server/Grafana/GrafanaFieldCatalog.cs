using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Syntax;
using Ingest.Query;

namespace Ingest.Server.Grafana;

/// <summary>
/// What the Grafana editors list: collections, the fields of a collection (those its indexes hold, then the scalar
/// properties of a sample of its documents), the indexed fields for ad hoc filters, and the type of a field a filter
/// compares (so <c>Total = "10"</c> compares a number).
/// </summary>
internal sealed class GrafanaFieldCatalog
{
    private const int SampleDocuments = 100;

    private readonly QueryEngine _engine;
    private readonly DocumentStore _store;

    public GrafanaFieldCatalog(QueryEngine engine, DocumentStore store)
    {
        _engine = engine;
        _store = store;
    }

    public IReadOnlyList<string> Collections() => [.. _store.GetStats().Collections.Select(static c => c.Name).Order(StringComparer.Ordinal)];

    /// <summary>The map-reduce indexes (static indexes with a reduce), by name.</summary>
    public IReadOnlyList<IndexDefinition> MapReduceIndexes() =>
        [.. _engine.Indexes.GetStatuses().Select(static s => s.Definition).Where(static d => d.Reduce is not null).OrderBy(static d => d.Name, StringComparer.Ordinal)];

    /// <summary>The map-reduce index named <paramref name="name"/>, or null (no such index, or a map index).</summary>
    public IndexDefinition? MapReduceIndex(string name) =>
        _engine.Indexes.GetStatus(name)?.Definition is { Reduce: not null } definition ? definition : null;

    /// <summary>Fields of <paramref name="collection"/> by path: indexed ones first, then sampled properties (objects one level deep).</summary>
    public IReadOnlyList<CollectionField> FieldsOf(string collection)
    {
        var fields = new Dictionary<string, IndexFieldType>(StringComparer.Ordinal);
        foreach (var status in _engine.Indexes.GetStatuses())
        {
            if (status.Definition.Collections.Contains(collection, StringComparer.Ordinal))
            {
                foreach (var field in status.Definition.Fields)
                {
                    fields.TryAdd(field.Path, field.Type);
                }
            }
        }

        using (var reader = _store.BeginRead())
        {
            var sampled = 0;
            foreach (var document in reader.GetCollection(collection))
            {
                if (sampled++ >= SampleDocuments)
                {
                    break;
                }

                try
                {
                    using var json = JsonDocument.Parse(document.Body.ToArray());
                    AddProperties(json.RootElement, prefix: null, depth: 0, fields);
                }
                catch (JsonException)
                {
                    // not JSON we can list fields of
                }
            }
        }

        return [.. fields.Select(static f => new CollectionField(f.Key, f.Value))];
    }

    /// <summary>
    /// Indexed fields by name over every index (ad hoc filter keys), then the group keys of map-reduce indexes (so a
    /// filter can name <c>Hour</c>); the first index's type for a name in several.
    /// </summary>
    public IReadOnlyList<CollectionField> IndexedFields()
    {
        var fields = new Dictionary<string, IndexFieldType>(StringComparer.OrdinalIgnoreCase);
        var statuses = _engine.Indexes.GetStatuses().OrderBy(static s => AutoIndexNames.IsAutomatic(s.Definition.Name)).ToList();
        foreach (var status in statuses)
        {
            foreach (var field in status.Definition.Fields)
            {
                fields.TryAdd(field.Name, field.Type);
            }
        }

        foreach (var status in statuses)
        {
            if (status.Definition.Reduce is not null)
            {
                foreach (var key in MapReduceColumns.Keys(status.Definition))
                {
                    fields.TryAdd(key.Name, key.Type);
                }
            }
        }

        return [.. fields.OrderBy(static f => f.Key, StringComparer.Ordinal).Select(static f => new CollectionField(f.Key, f.Value))];
    }

    /// <summary>A map index holding a field named <paramref name="name"/> (static indexes first), for the field's values by a facet.</summary>
    public string? IndexWithField(string name) =>
        _engine.Indexes.GetStatuses()
            .Where(static s => s.Definition.Reduce is null)
            .OrderBy(static s => AutoIndexNames.IsAutomatic(s.Definition.Name))
            .FirstOrDefault(s => s.Definition.Fields.Any(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase)))?.Definition.Name;

    /// <summary>The type of <paramref name="name"/> where <paramref name="source"/> reads it; null when nothing says.</summary>
    public IndexFieldType? TypeOf(QuerySource source, string name)
    {
        if (source.Kind == QuerySourceKind.Index)
        {
            if (MapReduceIndex(source.Name) is { } mapReduce)
            {
                return MapReduceColumns.TypeOf(mapReduce, name);
            }

            return _engine.Indexes.GetStatus(source.Name)?.Definition.Fields
                .FirstOrDefault(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase))?.Type;
        }

        return FieldsOf(source.Name).FirstOrDefault(f => string.Equals(f.Name, name, StringComparison.Ordinal))?.Type;
    }

    /// <summary>A property name as a path segment: bare when it is an identifier, else quoted.</summary>
    private static string PathSegment(string name) =>
        name.Length > 0 && (char.IsLetter(name[0]) || name[0] is '_' or '@') && name.All(static c => char.IsLetterOrDigit(c) || c is '_' or '@')
            ? name
            : "\"" + name.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal) + "\"";

    private static void AddProperties(JsonElement element, string? prefix, int depth, Dictionary<string, IndexFieldType> fields)
    {
        if (element.ValueKind != JsonValueKind.Object)
        {
            return;
        }

        foreach (var property in element.EnumerateObject())
        {
            var path = prefix is null ? PathSegment(property.Name) : $"{prefix}.{PathSegment(property.Name)}";
            var value = property.Value;
            IndexFieldType? type = value.ValueKind switch
            {
                JsonValueKind.Number => IndexFieldType.Number,
                JsonValueKind.True or JsonValueKind.False => IndexFieldType.Bool,
                JsonValueKind.String => value.TryGetDateTimeOffset(out _) ? IndexFieldType.DateTime : IndexFieldType.Keyword,
                _ => null,
            };

            if (type is { } known)
            {
                fields.TryAdd(path, known);
            }
            else if (value.ValueKind == JsonValueKind.Object && depth == 0)
            {
                AddProperties(value, path, depth + 1, fields);
            }
        }
    }
}
