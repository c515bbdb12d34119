using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;
using Ingest.Server.Queries;

namespace Ingest.Server.Grafana;

/// <summary>
/// Turns a target into a query. The target is, in this order: a saved query's name (its text; its parameters, then the
/// payload's properties), a collection's name (a query built from the payload: <c>time</c>, <c>aggregate</c>,
/// <c>field</c>, <c>groupBy</c>, <c>where</c>), a map-reduce index's name (its groups in the panel's range, from the
/// payload: <c>value</c>, <c>where</c>), or query text (the payload's properties as parameters). Every query gets
/// <c>$from</c> and <c>$to</c> (the panel's range, ISO 8601) and <c>$interval</c> (the bucket, see <see cref="GrafanaBucket"/>),
/// and Grafana's ad hoc filters as <c>and</c> conditions.
/// </summary>
internal sealed class GrafanaTargetResolver
{
    private readonly SavedQueryStore _saved;
    private readonly GrafanaFieldCatalog _catalog;

    public GrafanaTargetResolver(SavedQueryStore saved, GrafanaFieldCatalog catalog)
    {
        _saved = saved;
        _catalog = catalog;
    }

    /// <exception cref="QueryException">The text does not parse, or a filter cannot apply.</exception>
    public ResolvedTarget Resolve(string target, JsonElement? payload, DateTimeOffset from, DateTimeOffset to, string interval, IReadOnlyList<GrafanaAdHocFilter> filters)
    {
        var parameters = new Dictionary<string, JsonElement>(StringComparer.Ordinal);
        ParsedQuery query;
        string? origin = null;
        if (_saved.Get(target) is { } saved)
        {
            origin = $"saved query '{saved.Name}'";
            foreach (var (name, value) in saved.Parameters ?? new Dictionary<string, JsonElement>())
            {
                parameters[name] = value;
            }

            AddPayload(parameters, payload);
            query = QueryParser.Parse(saved.Query);
        }
        else if (!target.Contains(' ', StringComparison.Ordinal) && _catalog.Collections().Contains(target, StringComparer.Ordinal))
        {
            query = Build(target, payload);
        }
        else if (!target.Contains(' ', StringComparison.Ordinal) && _catalog.MapReduceIndex(target) is { } mapReduce)
        {
            query = BuildMapReduce(mapReduce, payload);
        }
        else
        {
            AddPayload(parameters, payload);
            query = QueryParser.Parse(target);
        }

        parameters["from"] = JsonSerializer.SerializeToElement(Iso(from), QueryJsonContext.Default.String);
        parameters["to"] = JsonSerializer.SerializeToElement(Iso(to), QueryJsonContext.Default.String);
        parameters["interval"] = JsonSerializer.SerializeToElement(interval, QueryJsonContext.Default.String);
        return new ResolvedTarget(ResultTable.CapRows(AddFilters(query, filters)), parameters, origin);
    }

    /// <summary>The message Grafana shows for <paramref name="error"/>: a filter's text for errors in an ad hoc filter, else the position in the user's text.</summary>
    public static string Describe(QueryException error, string refId, string? origin, IReadOnlyList<GrafanaAdHocFilter> filters)
    {
        var position = error.Position;
        var where = origin is null ? $"query {refId}" : $"query {refId} ({origin})";
        if (position.Line == 0 && position.Offset < 0 && position.Column >= 1 && position.Column <= filters.Count)
        {
            var filter = filters[position.Column - 1];
            return $"{where}: ad hoc filter {filter.Key} {filter.Operator} {filter.Value}: {error.Detail}";
        }

        return $"{where}: {error.Message}";
    }

    internal static string Iso(DateTimeOffset time) => time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);

    private static void AddPayload(Dictionary<string, JsonElement> parameters, JsonElement? payload)
    {
        if (payload is { ValueKind: JsonValueKind.Object } body)
        {
            foreach (var property in body.EnumerateObject())
            {
                parameters[property.Name] = property.Value.Clone();
            }
        }
    }

    /// <summary>
    /// A query over <paramref name="collection"/> from the editor's choices: with <c>time</c>, a time series over the
    /// panel's range (<c>group by time(T, $interval)</c>, optionally split by <c>groupBy</c>); without, a table.
    /// </summary>
    private static ParsedQuery Build(string collection, JsonElement? payload)
    {
        var body = payload ?? default;
        var at = default(SourcePosition);
        var time = Choice(body, "time");
        var groupBy = Choice(body, "groupBy");
        var fieldName = Choice(body, "field");
        var aggregateName = Choice(body, "aggregate") ?? "count";
        var where = Choice(body, "where");
        if (!Enum.TryParse<AggregateFunction>(aggregateName, ignoreCase: true, out var function))
        {
            throw new QueryException(at, $"unknown aggregate '{aggregateName}' in the payload; expected count, sum, avg, min or max");
        }

        if (function != AggregateFunction.Count && fieldName is null)
        {
            throw new QueryException(at, $"the payload's aggregate '{aggregateName}' needs a 'field' (a number field)");
        }

        var field = fieldName is null ? null : new FieldRef(fieldName, false, at);
        var aggregate = new AggregateSelect(function, field, QueryFormatter.FormatAggregate(function, field), at);
        QueryFilter? filter = where is null ? null : QueryParser.Parse("from x where " + where).Where;
        var keys = new List<GroupByItem>();
        if (time is not null)
        {
            var timeField = new FieldRef(time, false, at);
            var range = new BetweenFilter(timeField, new ParameterValue("from", at), new ParameterValue("to", at), at);
            filter = filter is null ? range : new AndFilter(range, filter, at);
            keys.Add(new TimeGroupBy(timeField, new ParameterValue("interval", at), at));
        }

        if (groupBy is not null)
        {
            keys.Add(new FieldGroupBy(new FieldRef(groupBy, false, at), at));
        }

        return new ParsedQuery(new QuerySource(QuerySourceKind.Collection, collection, at), filter, keys, [aggregate], [], null, null);
    }

    /// <summary>
    /// <c>from index 'X'</c> over a map-reduce index's groups: with a time bucket key, those in the panel's range
    /// (<c>Hour between $from and $to</c>), a time series; the payload's <c>where</c> added, and with <c>value</c> the
    /// keys and that one aggregate selected (else every column).
    /// </summary>
    private static ParsedQuery BuildMapReduce(IndexDefinition index, JsonElement? payload)
    {
        var body = payload ?? default;
        var at = default(SourcePosition);
        var where = Choice(body, "where");
        var value = Choice(body, "value");
        QueryFilter? filter = where is null ? null : QueryParser.Parse("from x where " + where).Where;
        if (MapReduceColumns.TimeKey(index) is { } time)
        {
            var range = new BetweenFilter(new FieldRef(time, false, at), new ParameterValue("from", at), new ParameterValue("to", at), at);
            filter = filter is null ? range : new AndFilter(range, filter, at);
        }

        var select = new List<SelectItem>();
        if (value is not null)
        {
            var aggregates = MapReduceColumns.Aggregates(index);
            var chosen = aggregates.FirstOrDefault(a => string.Equals(a.Name, value, StringComparison.OrdinalIgnoreCase))
                ?? throw new QueryException(at, $"the payload's value '{value}' is not an aggregate of index '{index.Name}'; its aggregates are {string.Join(", ", aggregates.Select(static a => a.Name))}");
            foreach (var key in MapReduceColumns.Keys(index))
            {
                select.Add(new FieldSelect(new FieldRef(key.Name, false, at), key.Name, at));
            }

            select.Add(new FieldSelect(new FieldRef(chosen.Name, false, at), chosen.Name, at));
        }

        return new ParsedQuery(new QuerySource(QuerySourceKind.Index, index.Name, at), filter, [], select, [], null, null);
    }

    private static string? Choice(JsonElement payload, string name) =>
        GrafanaRequestReader.ReadString(payload, name) is { Length: > 0 } value ? value.Trim() : null;

    /// <summary>
    /// Adds each filter as an <c>and</c> condition. A filter's nodes carry the position (line 0, column = its number,
    /// offset -1) that <see cref="Describe"/> recognises, so an error in one names the filter rather than a place in the text.
    /// </summary>
    private ParsedQuery AddFilters(ParsedQuery query, IReadOnlyList<GrafanaAdHocFilter> filters)
    {
        var where = query.Where;
        for (var i = 0; i < filters.Count; i++)
        {
            var filter = filters[i];
            var at = new SourcePosition(-1, 0, i + 1);
            var isId = filter.Key is "Id" or "id" or "id()";
            var field = new FieldRef(isId ? "id()" : filter.Key, isId, at);
            var type = isId ? IndexFieldType.Keyword : _catalog.TypeOf(query.Source, filter.Key);
            QueryFilter condition = (filter.Operator, type) switch
            {
                ("=", IndexFieldType.Text) => new SearchFilter(field, new StringValue(filter.Value, at), at),
                ("!=", IndexFieldType.Text) => new NotFilter(new SearchFilter(field, new StringValue(filter.Value, at), at), at),
                ("=", _) => new ComparisonFilter(field, ComparisonOperator.Equal, Literal(filter.Value, type, at), at),
                ("!=", _) => new ComparisonFilter(field, ComparisonOperator.NotEqual, Literal(filter.Value, type, at), at),
                ("<", _) => new ComparisonFilter(field, ComparisonOperator.Less, Literal(filter.Value, type, at), at),
                ("<=", _) => new ComparisonFilter(field, ComparisonOperator.LessOrEqual, Literal(filter.Value, type, at), at),
                (">", _) => new ComparisonFilter(field, ComparisonOperator.Greater, Literal(filter.Value, type, at), at),
                (">=", _) => new ComparisonFilter(field, ComparisonOperator.GreaterOrEqual, Literal(filter.Value, type, at), at),
                _ => throw new QueryException(at, $"operator '{filter.Operator}' is not supported; use =, !=, <, <=, > or >="),
            };

            where = where is null ? condition : new AndFilter(where, condition, at);
        }

        return query with { Where = where };
    }

    /// <summary>The filter's value as the field's type takes it: a number for a number field, true/false for a bool, else a string.</summary>
    private static QueryValue Literal(string value, IndexFieldType? type, SourcePosition at) => type switch
    {
        IndexFieldType.Number when double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var number) => new NumberValue(number, value, at),
        IndexFieldType.Bool when bool.TryParse(value, out var flag) => new BoolValue(flag, at),
        _ => new StringValue(value, at),
    };
}
