using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// Resolves the aggregate parts of a parsed query (group by, aggregates, facets, order by an aggregate, limit and
/// offset) against an index definition: fields by name, types checked, intervals and ranges read, so that execution
/// only walks the index. Errors are <see cref="QueryException"/>s at the offending item.
/// </summary>
internal sealed class AggregationBinder
{
    /// <summary>More keys than any useful grouping; keeps the per-document key combinations on the stack.</summary>
    public const int MaxGroupKeys = 8;

    private readonly IndexDefinition _index;
    private readonly Func<ParameterValue, JsonElement> _parameter;

    public AggregationBinder(IndexDefinition index, Func<ParameterValue, JsonElement> parameter)
    {
        _index = index;
        _parameter = parameter;
    }

    /// <summary>Whether the query aggregates (group by, an aggregate or a facet anywhere) rather than returning documents.</summary>
    public static bool IsAggregation(ParsedQuery query)
    {
        ArgumentNullException.ThrowIfNull(query);
        if (query.GroupBy.Count > 0)
        {
            return true;
        }

        foreach (var item in query.Select)
        {
            if (item is AggregateSelect or FacetSelect)
            {
                return true;
            }
        }

        foreach (var order in query.OrderBy)
        {
            if (order.Aggregate != null)
            {
                return true;
            }
        }

        return false;
    }

    public AggregationQuery Bind(ParsedQuery query)
    {
        var facets = new List<BoundFacet>();
        foreach (var item in query.Select)
        {
            if (item is FacetSelect facet)
            {
                facets.Add(BindFacet(facet));
            }
        }

        if (facets.Count > 0)
        {
            return BindFacetQuery(query, facets);
        }

        if (query.GroupBy.Count > MaxGroupKeys)
        {
            throw new QueryException(query.GroupBy[MaxGroupKeys].Position, $"at most {MaxGroupKeys} group keys");
        }

        var keys = new List<GroupKey>();
        foreach (var item in query.GroupBy)
        {
            keys.Add(BindKey(item));
        }

        var aggregates = new List<BoundAggregate>();
        var columns = new List<AggregationColumn>();
        var sources = new List<int>();
        var selectedKeys = new bool[keys.Count];
        var selectColumns = new List<AggregationColumn>();
        var selectSources = new List<int>();
        foreach (var item in query.Select)
        {
            switch (item)
            {
                case FieldSelect field:
                    var key = FindKey(keys, field.Field);
                    if (key < 0 || selectedKeys[key])
                    {
                        throw new QueryException(
                            field.Position,
                            key < 0
                                ? $"field '{field.Field.Path}' is not a group key; add it to group by or use an aggregate"
                                : $"group key '{field.Field.Path}' is selected twice");
                    }

                    selectedKeys[key] = true;
                    keys[key].ColumnName = field.Name;
                    selectColumns.Add(new AggregationColumn(field.Name, KeyColumnType(keys[key])));
                    selectSources.Add(key);
                    break;
                case AggregateSelect aggregate:
                    var bound = BindAggregate(aggregate, field: ResolveAggregateField(aggregate), name: aggregate.Name, isWritten: true);
                    aggregates.Add(bound);
                    selectColumns.Add(new AggregationColumn(aggregate.Name, AggregateColumnType(bound)));
                    selectSources.Add(AggregationQuery.AggregateSource(aggregates.Count - 1));
                    break;
                default:
                    throw new QueryException(item.Position, $"'{item.Name}' cannot be selected in an aggregation");
            }
        }

        for (var k = 0; k < keys.Count; k++)
        {
            if (!selectedKeys[k])
            {
                keys[k].ColumnName = keys[k].Interval == null ? query.GroupBy[k] is FieldGroupBy f ? f.Field.Path : "" : "time";
                columns.Add(new AggregationColumn(keys[k].ColumnName, KeyColumnType(keys[k])));
                sources.Add(k);
            }
        }

        columns.AddRange(selectColumns);
        sources.AddRange(selectSources);
        CheckDistinctColumns(query, columns);

        var orders = new List<GroupOrder>();
        foreach (var order in query.OrderBy)
        {
            orders.Add(BindOrder(order, keys, aggregates));
        }

        return new AggregationQuery(
            keys,
            aggregates,
            [],
            orders,
            columns,
            sources,
            Count(query.Limit, "limit") ?? long.MaxValue,
            Count(query.Offset, "offset") ?? 0);
    }

    private AggregationQuery BindFacetQuery(ParsedQuery query, List<BoundFacet> facets)
    {
        if (query.GroupBy.Count > 0)
        {
            throw new QueryException(query.GroupBy[0].Position, "facet() cannot be combined with group by");
        }

        foreach (var item in query.Select)
        {
            if (item is not FacetSelect)
            {
                throw new QueryException(item.Position, $"'{item.Name}' cannot be selected beside facet(); facets give their own rows");
            }
        }

        if (query.OrderBy.Count > 0)
        {
            throw new QueryException(query.OrderBy[0].Position, "order by does not apply to facets; their values come by descending count");
        }

        if (query.Limit != null || query.Offset != null)
        {
            throw new QueryException((query.Limit ?? query.Offset)!.Position, "limit and offset do not apply to facets");
        }

        AggregationColumn[] columns =
        [
            new("facet", AggregationColumnType.String),
            new("value", AggregationColumnType.Any),
            new("range", AggregationColumnType.String),
            new("count", AggregationColumnType.Number),
        ];
        return new AggregationQuery([], [], facets, [], columns, [], long.MaxValue, 0);
    }

    private GroupKey BindKey(GroupByItem item)
    {
        switch (item)
        {
            case FieldGroupBy byField:
                var (field, type) = Resolve(byField.Field);
                if (type == IndexFieldType.Text)
                {
                    throw new QueryException(byField.Field.Position, $"cannot group by text field '{byField.Field.Path}'; group by a keyword field");
                }

                return new GroupKey(field, type, null, byField.Position);
            case TimeGroupBy byTime:
                var (timeField, timeType) = Resolve(byTime.Field);
                if (timeType != IndexFieldType.DateTime)
                {
                    throw new QueryException(byTime.Field.Position, $"time() needs a datetime field; '{byTime.Field.Path}' is a {TypeName(timeType)} field");
                }

                var interval = TimeInterval.Parse(StringOf(byTime.Interval, "a time interval like '5m'"), byTime.Interval.Position);
                return new GroupKey(timeField, timeType, interval, byTime.Interval.Position);
            default:
                throw new QueryException(item.Position, "unsupported group by item");
        }
    }

    private BoundFacet BindFacet(FacetSelect facet)
    {
        var (field, type) = Resolve(facet.Field);
        if (facet.Ranges.Count == 0)
        {
            if (type == IndexFieldType.Text)
            {
                throw new QueryException(facet.Field.Position, $"cannot facet text field '{facet.Field.Path}'; facet a keyword field");
            }

            return new BoundFacet(field, type, facet.Name, null, SingleValued: false);
        }

        if (type != IndexFieldType.Number)
        {
            throw new QueryException(facet.Field.Position, $"range facets need a number field; '{facet.Field.Path}' is a {TypeName(type)} field");
        }

        var ranges = new double[facet.Ranges.Count];
        for (var i = 0; i < ranges.Length; i++)
        {
            ranges[i] = NumberOf(facet.Ranges[i]);
            if (i > 0 && ranges[i] <= ranges[i - 1])
            {
                throw new QueryException(facet.Ranges[i].Position, "range boundaries must ascend");
            }
        }

        // A path without '[]' reaches at most one value (an array there is a wrong type), so the column holds them all.
        var singleValued = !_index.Fields[field].Path.Contains("[]", StringComparison.Ordinal);
        return new BoundFacet(field, type, facet.Name, ranges, singleValued);
    }

    private (int Field, IndexFieldType Type)? ResolveAggregateField(AggregateSelect aggregate) =>
        aggregate.Field == null || (aggregate.Function == AggregateFunction.Count && aggregate.Field.IsDocumentId)
            ? null
            : Resolve(aggregate.Field);

    private static BoundAggregate BindAggregate(AggregateSelect aggregate, (int Field, IndexFieldType Type)? field, string name, bool isWritten)
    {
        if (field == null)
        {
            if (aggregate.Function != AggregateFunction.Count)
            {
                throw new QueryException(aggregate.Position, $"{FunctionName(aggregate.Function)}() needs a field");
            }

            return new BoundAggregate(AggregateFunction.Count, -1, IndexFieldType.Number, name, isWritten);
        }

        var (ordinal, type) = field.Value;
        var accepted = aggregate.Function switch
        {
            AggregateFunction.Count => true,
            AggregateFunction.Sum or AggregateFunction.Avg => type == IndexFieldType.Number,
            _ => type is IndexFieldType.Number or IndexFieldType.DateTime,
        };

        if (!accepted)
        {
            var wanted = aggregate.Function is AggregateFunction.Sum or AggregateFunction.Avg ? "a number field" : "a number or datetime field";
            throw new QueryException(aggregate.Field!.Position, $"{FunctionName(aggregate.Function)}() needs {wanted}; '{aggregate.Field.Path}' is a {TypeName(type)} field");
        }

        return new BoundAggregate(aggregate.Function, ordinal, type, name, isWritten);
    }

    private GroupOrder BindOrder(OrderByItem order, List<GroupKey> keys, List<BoundAggregate> aggregates)
    {
        if (order.Aggregate != null)
        {
            var field = ResolveAggregateField(order.Aggregate);
            var wanted = BindAggregate(order.Aggregate, field, order.Aggregate.Name, isWritten: false);
            for (var i = 0; i < aggregates.Count; i++)
            {
                if (aggregates[i].Function == wanted.Function && aggregates[i].Field == wanted.Field)
                {
                    return new GroupOrder(i, -1, order.Descending);
                }
            }

            aggregates.Add(wanted);
            return new GroupOrder(aggregates.Count - 1, -1, order.Descending);
        }

        var key = FindKey(keys, order.Field!);
        if (key < 0)
        {
            throw new QueryException(order.Position, $"cannot order groups by '{order.Field!.Path}'; order by a group key or an aggregate");
        }

        return new GroupOrder(-1, key, order.Descending);
    }

    private int FindKey(List<GroupKey> keys, FieldRef field)
    {
        if (field.IsDocumentId)
        {
            return -1;
        }

        // A field key before a time() key of the same field: 'group by time(At, '1d'), At select At' selects the field key.
        var ordinal = FieldOrdinal(field.Path);
        var timeKey = -1;
        for (var k = 0; k < keys.Count; k++)
        {
            if (keys[k].Field == ordinal)
            {
                if (keys[k].Interval == null)
                {
                    return k;
                }

                timeKey = timeKey < 0 ? k : timeKey;
            }
        }

        return timeKey;
    }

    private static void CheckDistinctColumns(ParsedQuery query, List<AggregationColumn> columns)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (var column in columns)
        {
            if (!names.Add(column.Name))
            {
                var position = query.Select.Count > 0 ? query.Select[0].Position : query.GroupBy[0].Position;
                throw new QueryException(position, $"two result columns are named '{column.Name}'; rename one with 'as'");
            }
        }
    }

    private (int Field, IndexFieldType Type) Resolve(FieldRef field)
    {
        if (field.IsDocumentId)
        {
            throw new QueryException(field.Position, "id() cannot be grouped or aggregated; it is unique per document");
        }

        var ordinal = FieldOrdinal(field.Path);
        if (ordinal < 0)
        {
            var names = new List<string>(_index.Fields.Count);
            foreach (var f in _index.Fields)
            {
                names.Add(f.Name);
            }

            throw new QueryException(field.Position, $"unknown field '{field.Path}' in index '{_index.Name}'; fields are {string.Join(", ", names)}");
        }

        return (ordinal, _index.Fields[ordinal].Type);
    }

    private int FieldOrdinal(string path)
    {
        for (var i = 0; i < _index.Fields.Count; i++)
        {
            if (string.Equals(_index.Fields[i].Name, path, StringComparison.OrdinalIgnoreCase))
            {
                return i;
            }
        }

        return -1;
    }

    private string StringOf(QueryValue value, string expected)
    {
        switch (value)
        {
            case StringValue s:
                return s.Value;
            case ParameterValue p when _parameter(p) is { ValueKind: JsonValueKind.String } json:
                return json.GetString()!;
            default:
                throw new QueryException(value.Position, $"expected {expected} but found {Describe(value)}");
        }
    }

    private double NumberOf(QueryValue value)
    {
        switch (value)
        {
            case NumberValue n:
                return n.Value;
            case ParameterValue p when _parameter(p) is { ValueKind: JsonValueKind.Number } json:
                return json.GetDouble();
            default:
                throw new QueryException(value.Position, $"expected a number but found {Describe(value)}");
        }
    }

    private long? Count(QueryValue? value, string clause)
    {
        if (value == null)
        {
            return null;
        }

        var found = value switch
        {
            NumberValue n when n.Value >= 0 && n.Value == Math.Floor(n.Value) && n.Value <= long.MaxValue => (long?)n.Value,
            ParameterValue p when _parameter(p) is { ValueKind: JsonValueKind.Number } json && json.TryGetInt64(out var l) && l >= 0 => l,
            _ => null,
        };

        return found ?? throw new QueryException(value.Position, $"{clause} must be a non-negative integer but found {Describe(value)}");
    }

    private string Describe(QueryValue value) => value switch
    {
        StringValue s => $"'{s.Value}'",
        NumberValue n => n.Text,
        BoolValue b => b.Value ? "true" : "false",
        NullValue => "null",
        ParameterValue p => $"${p.Name} = {_parameter(p).GetRawText()}",
        _ => value.ToString() ?? "",
    };

    private static AggregationColumnType KeyColumnType(GroupKey key) => key.Interval != null ? AggregationColumnType.DateTime : ColumnTypeOf(key.Type);

    private static AggregationColumnType AggregateColumnType(BoundAggregate aggregate) =>
        aggregate.IsDateTime ? AggregationColumnType.DateTime : AggregationColumnType.Number;

    private static AggregationColumnType ColumnTypeOf(IndexFieldType type) => type switch
    {
        IndexFieldType.Number => AggregationColumnType.Number,
        IndexFieldType.DateTime => AggregationColumnType.DateTime,
        IndexFieldType.Bool => AggregationColumnType.Bool,
        _ => AggregationColumnType.String,
    };

    private static string FunctionName(AggregateFunction function) => function.ToString().ToLowerInvariant();

    private static string TypeName(IndexFieldType type) => type.ToString().ToLower(CultureInfo.InvariantCulture);
}
