using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query;
using Ingest.Query.Syntax;
using Ingest.Server.Queries;

namespace Ingest.Server.Grafana;

/// <summary>The editors' half of <see cref="GrafanaDataSource"/>: what a panel can query, its payload options, and the ad hoc filters' keys and values.</summary>
internal sealed partial class GrafanaDataSource
{
    private static readonly string[] AggregateNames = ["count", "sum", "avg", "min", "max"];

    /// <summary>Ad hoc filter keys: every indexed field by name, <c>[{"type": "string"|"number"|"time"|"boolean", "text"}]</c>.</summary>
    public IResult TagKeys() => GrafanaResponseWriter.Json(writer =>
    {
        writer.WriteStartArray();
        foreach (var field in _catalog.IndexedFields())
        {
            writer.WriteStartObject();
            writer.WriteString("type", GrafanaResponseWriter.TypeName(field.Type));
            writer.WriteString("text", field.Name);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    });

    /// <summary><c>{key}</c> to <c>[{"text"}]</c>: the key's values, most frequent first; none for an unknown key or a text field.</summary>
    public async Task<IResult> TagValuesAsync(JsonElement body, CancellationToken ct)
    {
        var key = GrafanaRequestReader.ReadString(body, "key");
        var values = string.IsNullOrEmpty(key) ? [] : await ValuesOfAsync(key, ct).ConfigureAwait(false);
        return GrafanaResponseWriter.Json(writer =>
        {
            writer.WriteStartArray();
            foreach (var value in values)
            {
                writer.WriteStartObject();
                writer.WriteString("text", value);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        });
    }

    /// <summary>
    /// What a panel can query: each saved query (its parameters as inputs), each map-reduce index (its groups in the
    /// panel's range: which aggregate, where) and each collection (a builder: time field, aggregate, number field, split
    /// by field, where).
    /// </summary>
    public IResult Metrics() => GrafanaResponseWriter.Json(writer =>
    {
        writer.WriteStartArray();
        foreach (var saved in _saved.List())
        {
            writer.WriteStartObject();
            writer.WriteString("value", saved.Name);
            writer.WriteString("label", saved.Description is { Length: > 0 } d ? $"{saved.Name}: {d}" : saved.Name);
            writer.WriteStartArray("payloads");
            foreach (var (name, value) in saved.Parameters ?? new Dictionary<string, JsonElement>())
            {
                GrafanaResponseWriter.WritePayload(writer, name, name, "select", $"default: {ResultValues.Text(value)}");
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        foreach (var index in _catalog.MapReduceIndexes())
        {
            var keys = string.Join(", ", MapReduceColumns.Keys(index).Select(static k => k.Name));
            writer.WriteStartObject();
            writer.WriteString("value", index.Name);
            writer.WriteString("label", $"map-reduce index {index.Name} (by {(keys.Length == 0 ? "nothing" : keys)})");
            writer.WriteStartArray("payloads");
            GrafanaResponseWriter.WritePayload(writer, "value", "Aggregate", "select", "all of them");
            GrafanaResponseWriter.WritePayload(writer, "where", "Where", "input", MapReduceColumns.Keys(index).FirstOrDefault(static k => k.Type == IndexFieldType.Keyword) is { } key ? $"{key.Name} = 'shipped'" : "a condition on its columns");
            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        foreach (var collection in _catalog.Collections())
        {
            writer.WriteStartObject();
            writer.WriteString("value", collection);
            writer.WriteString("label", $"collection {collection}");
            writer.WriteStartArray("payloads");
            GrafanaResponseWriter.WritePayload(writer, "time", "Time field (time series)", "select", "none: a table");
            GrafanaResponseWriter.WritePayload(writer, "aggregate", "Aggregate", "select", "count");
            GrafanaResponseWriter.WritePayload(writer, "field", "Of field", "select", "a number field");
            GrafanaResponseWriter.WritePayload(writer, "groupBy", "Split by", "select", "none");
            GrafanaResponseWriter.WritePayload(writer, "where", "Where", "input", "Status = 'shipped'");
            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    });

    /// <summary><c>{metric, payload, name}</c> to <c>[{value, label}]</c>: a collection's fields of the kind the builder option takes, or the values of a field named like a saved query's parameter.</summary>
    public async Task<IResult> MetricPayloadOptionsAsync(JsonElement body, CancellationToken ct)
    {
        var metric = GrafanaRequestReader.ReadString(body, "metric") ?? string.Empty;
        var name = GrafanaRequestReader.ReadString(body, "name") ?? string.Empty;
        IReadOnlyList<string> options = [];
        if (_saved.Get(metric) is not null)
        {
            options = await ValuesOfAsync(name, ct).ConfigureAwait(false);
        }
        else if (_catalog.MapReduceIndex(metric) is { } index)
        {
            options = name == "value" ? [.. MapReduceColumns.Aggregates(index).Select(static a => a.Name)] : [];
        }
        else if (_catalog.Collections().Contains(metric, StringComparer.Ordinal))
        {
            options = name == "aggregate" ? AggregateNames : FieldsFor(metric, name);
        }

        return GrafanaResponseWriter.Json(writer =>
        {
            writer.WriteStartArray();
            foreach (var option in options)
            {
                writer.WriteStartObject();
                writer.WriteString("value", option);
                writer.WriteString("label", option);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        });
    }

    private List<string> FieldsFor(string collection, string option)
    {
        Func<IndexFieldType, bool> wanted = option switch
        {
            "time" => static t => t == IndexFieldType.DateTime,
            "field" => static t => t == IndexFieldType.Number,
            "groupBy" => static t => t is IndexFieldType.Keyword or IndexFieldType.Bool or IndexFieldType.Number,
            _ => static _ => false,
        };

        return [.. _catalog.FieldsOf(collection).Where(f => wanted(f.Type)).Select(static f => f.Name)];
    }

    /// <summary>
    /// The values of the indexed field named <paramref name="key"/> (a value facet over a map index holding it), else of
    /// the map-reduce group key named so (its groups' values, in key order).
    /// </summary>
    private async Task<IReadOnlyList<string>> ValuesOfAsync(string key, CancellationToken ct)
    {
        var index = _catalog.IndexWithField(key);
        if (index is null && _catalog.MapReduceIndexes().FirstOrDefault(i => MapReduceColumns.Keys(i).Any(k => string.Equals(k.Name, key, StringComparison.OrdinalIgnoreCase))) is { } mapReduce)
        {
            return await GroupKeyValuesAsync(mapReduce, key, ct).ConfigureAwait(false);
        }

        if (index is null || _catalog.TypeOf(new QuerySource(QuerySourceKind.Index, index, default), key) == IndexFieldType.Text)
        {
            return [];
        }

        var at = default(SourcePosition);
        var facet = new FacetSelect(new FieldRef(key, false, at), [], "values", at);
        var query = new ParsedQuery(new QuerySource(QuerySourceKind.Index, index, at), null, [], [facet], [], null, null);
        ResultTable table;
        try
        {
            table = await RunAsync(query, new Dictionary<string, JsonElement>(), ct).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is QueryException or QueryUnavailableException)
        {
            return []; // the drop-down stays empty; the plugin would turn an error into a bare 404 anyway
        }

        using var owned = table;
        var value = table.Columns.Select(static c => c.Name).ToList().IndexOf("value");
        return value < 0 ? [] : [.. table.Rows.Take(MaxListedValues).Select(r => ResultValues.Text(r[value]))];
    }

    private async Task<IReadOnlyList<string>> GroupKeyValuesAsync(IndexDefinition index, string key, CancellationToken ct)
    {
        var at = default(SourcePosition);
        var column = new FieldRef(key, false, at);
        var query = new ParsedQuery(new QuerySource(QuerySourceKind.Index, index.Name, at), null, [], [new FieldSelect(column, key, at)], [new OrderByItem(column, null, false, OrderByType.Default, at)], null, null);
        ResultTable table;
        try
        {
            table = await RunAsync(query, new Dictionary<string, JsonElement>(), ct).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is QueryException or QueryUnavailableException)
        {
            return [];
        }

        using var owned = table;
        var values = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var row in table.Rows)
        {
            if (row[0] is { } value && seen.Add(ResultValues.Text(value)) && values.Count < MaxListedValues)
            {
                values.Add(ResultValues.Text(value));
            }
        }

        return values;
    }
}
