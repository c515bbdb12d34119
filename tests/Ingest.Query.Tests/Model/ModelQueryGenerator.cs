using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Syntax;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// Random valid queries over <see cref="ModelIndex"/>: fields by their index names, values of each field's type drawn
/// from the documents' pools (so filters hit), some passed as parameters. Three kinds: documents (filters, order,
/// paging, projections), grouped aggregations (field and time keys), facets.
/// </summary>
internal sealed class ModelQueryGenerator
{
    private static readonly string[] Keywords = ["Status", "Code", "Customer", "Tags"];
    private static readonly string[] Numbers = ["Total", "Qty"];
    private static readonly string[] Orderable = ["Status", "Code", "Customer", "Tags", "Total", "Qty", "OrderedAt", "Paid"];
    private static readonly string[] GroupKeys = ["Status", "Customer", "Tags", "Code", "Total", "Paid", "OrderedAt"];
    private static readonly string[] Intervals = ["1d", "7d", "1w", "2w", "1M", "3M", "1y", "12h", "1000m"];
    private static readonly string[] RawPaths = ["Customer.Name", "Lines[].Sku", "Lines[].Qty", "Tags[]", "\"Notes\"", "Missing.Path"];

    private readonly Random _random;
    private readonly List<ModelDocument> _documents;
    private Dictionary<string, JsonElement> _parameters = [];

    public ModelQueryGenerator(Random random, List<ModelDocument> documents)
    {
        _random = random;
        _documents = documents;
    }

    public (ParsedQuery Query, Dictionary<string, JsonElement> Parameters) Next()
    {
        _parameters = [];
        var source = new QuerySource(QuerySourceKind.Index, ModelIndex.Name, default);
        var where = _random.Next(5) == 0 ? null : Filter(_random.Next(1, 4));
        ParsedQuery query = _random.Next(12) switch
        {
            < 2 => Scan(),
            < 7 => Documents(source, where),
            < 8 => Grouped(source, where),
            _ => new ParsedQuery(source, where, [], Distinct(List(1, 3, Facet)), [], null, null),
        };
        return (query, _parameters);
    }

    private ParsedQuery Documents(QuerySource source, QueryFilter? where)
    {
        IReadOnlyList<SelectItem> select = _random.Next(3) == 0 ? Distinct(List(1, 4, Projection)) : [];
        IReadOnlyList<OrderByItem> orderBy = _random.Next(2) == 0
            ? List(1, 2, OrderKey)
            : [];
        return new ParsedQuery(source, where, [], select, orderBy, _random.Next(2) == 0 ? Count(0, 40) : null, _random.Next(3) == 0 ? Count(0, 60) : null);
    }

    /// <summary>A query naming no field, answered by a collection scan: conditions on id() only, documents, ids or count().</summary>
    private ParsedQuery Scan()
    {
        var where = _random.Next(3) == 0 ? null : IdFilter(_random.Next(1, 3));
        IReadOnlyList<SelectItem> select = _random.Next(3) switch
        {
            0 => [new FieldSelect(Id(), _random.Next(2) == 0 ? QueryFormatter.DocumentIdName : "key", default)],
            1 => [NewAggregate(AggregateFunction.Count, null)],
            _ => [],
        };
        var page = select.Count == 1 && select[0] is AggregateSelect;
        return new ParsedQuery(
            new QuerySource(QuerySourceKind.Collection, ModelIndex.Collection, default),
            where,
            [],
            select,
            [],
            !page && _random.Next(2) == 0 ? Count(0, 40) : null,
            !page && _random.Next(3) == 0 ? Count(0, 60) : null);
    }

    private QueryFilter IdFilter(int depth) => RandomTrees.Filter(_random, depth, IdLeaf);

    private QueryFilter IdLeaf()
    {
        var id = Pick(_documents).Id;
        return _random.Next(3) switch
        {
            0 => new StartsWithFilter(Id(), new StringValue(id[..Math.Min(id.Length, _random.Next(1, 10))], default), default),
            1 => new InFilter(Id(), [new StringValue(id, default), new StringValue(Pick(_documents).Id, default)], default),
            _ => new ComparisonFilter(Id(), _random.Next(2) == 0 ? ComparisonOperator.Equal : ComparisonOperator.NotEqual, new StringValue(id, default), default),
        };
    }

    /// <summary>A field to order by, sometimes with the 'as number' or 'as string' its type allows.</summary>
    private OrderByItem OrderKey()
    {
        var field = _random.Next(8) == 0 ? Id() : Field(Pick(Orderable));
        var type = _random.Next(4) != 0 || field.IsDocumentId
            ? OrderByType.Default
            : ModelIndex.Field(field.Path).Type switch
            {
                IndexFieldType.Number => OrderByType.Number,
                IndexFieldType.Keyword => OrderByType.String,
                _ => OrderByType.Default,
            };
        return new OrderByItem(field, null, _random.Next(2) == 0, type, default);
    }

    private ParsedQuery Grouped(QuerySource source, QueryFilter? where)
    {
        var groupBy = new List<GroupByItem>();
        for (var n = _random.Next(3); n > 0; n--)
        {
            if (_random.Next(4) == 0 && !groupBy.Any(g => g is TimeGroupBy))
            {
                groupBy.Add(new TimeGroupBy(Field("OrderedAt"), Parameterize(new StringValue(Pick(Intervals), default)), default));
            }
            else
            {
                var name = Pick(GroupKeys);
                if (!groupBy.Any(g => g is FieldGroupBy f && f.Field.Path == name))
                {
                    groupBy.Add(new FieldGroupBy(Field(name), default));
                }
            }
        }

        var select = new List<SelectItem>();
        foreach (var key in groupBy.OfType<FieldGroupBy>())
        {
            if (_random.Next(2) == 0)
            {
                select.Add(new FieldSelect(key.Field, _random.Next(4) == 0 ? "k_" + key.Field.Path : key.Field.Path, default));
            }
        }

        var aggregates = List(groupBy.Count == 0 ? 1 : 0, 3, Aggregate);
        select.AddRange(aggregates);
        var orderBy = new List<OrderByItem>();
        if (_random.Next(3) == 0)
        {
            var byAggregate = _random.Next(2) == 0 || groupBy.OfType<FieldGroupBy>().FirstOrDefault() is not { } key;
            orderBy.Add(byAggregate
                ? new OrderByItem(null, _random.Next(2) == 0 ? NewAggregate(AggregateFunction.Count, null) : NewAggregate(AggregateFunction.Sum, Field("Total")), _random.Next(2) == 0, OrderByType.Default, default)
                : new OrderByItem(groupBy.OfType<FieldGroupBy>().First().Field, null, _random.Next(2) == 0, OrderByType.Default, default));
        }

        return new ParsedQuery(source, where, groupBy, Distinct(select), orderBy, _random.Next(4) == 0 ? Count(0, 10) : null, _random.Next(5) == 0 ? Count(0, 10) : null);
    }

    private AggregateSelect Aggregate()
    {
        var aggregate = _random.Next(6) switch
        {
            0 => NewAggregate(AggregateFunction.Count, null),
            1 => NewAggregate(AggregateFunction.Count, Field(Pick(Orderable))),
            2 => NewAggregate(AggregateFunction.Sum, Field(Pick(Numbers))),
            3 => NewAggregate(AggregateFunction.Avg, Field(Pick(Numbers))),
            4 => NewAggregate(AggregateFunction.Min, Field(_random.Next(3) == 0 ? "OrderedAt" : Pick(Numbers))),
            _ => NewAggregate(AggregateFunction.Max, Field(_random.Next(3) == 0 ? "OrderedAt" : Pick(Numbers))),
        };
        return _random.Next(5) == 0 ? aggregate with { Name = "a" + _random.Next(100).ToString(CultureInfo.InvariantCulture) } : aggregate;
    }

    private static AggregateSelect NewAggregate(AggregateFunction function, FieldRef? field) =>
        new(function, field, QueryFormatter.FormatAggregate(function, field), default);

    private FacetSelect Facet()
    {
        if (_random.Next(3) == 0)
        {
            var bounds = new SortedSet<double>();
            for (var n = _random.Next(1, 4); n > 0; n--)
            {
                bounds.Add(Pick(new double[] { -10, 0, 1, 2.5, 5, 10, 100, 1000 }));
            }

            var field = Field(Pick(Numbers));
            var ranges = bounds.Select(b => (QueryValue)Number(b)).ToList();
            return new FacetSelect(field, ranges, QueryFormatter.FormatFacet(field, ranges), default);
        }

        var valueField = Field(Pick(new[] { "Status", "Customer", "Tags", "Code", "Paid", "Total", "Qty" }));
        return new FacetSelect(valueField, [], QueryFormatter.FormatFacet(valueField, []), default);
    }

    private SelectItem Projection()
    {
        FieldRef field = _random.Next(6) switch
        {
            0 => Id(),
            1 => QueryParser.Parse("from x select " + Pick(RawPaths)).Select[0] is FieldSelect f ? f.Field : throw new InvalidOperationException(),
            _ => Field(Pick(ModelIndex.Definition.Fields).Name),
        };
        var name = _random.Next(4) == 0 ? "c" + _random.Next(10).ToString(CultureInfo.InvariantCulture) : QueryFormatter.DefaultName(field);
        return new FieldSelect(field, name, default);
    }

    /// <summary>Leaves the first item of each name: result objects cannot hold a property twice.</summary>
    private static List<SelectItem> Distinct(List<SelectItem> items) =>
        items.GroupBy(i => i.Name, StringComparer.Ordinal).Select(g => g.First()).ToList();

    private static List<SelectItem> Distinct<T>(List<T> items)
        where T : SelectItem => Distinct(items.Cast<SelectItem>().ToList());

    // ---- filters ----

    private QueryFilter Filter(int depth) => RandomTrees.Filter(_random, depth, Leaf);

    private QueryFilter Leaf()
    {
        switch (_random.Next(12))
        {
            case 0:
                return new ExistsFilter(Field(Pick(ModelIndex.Definition.Fields).Name), default);
            case 1:
                return new ComparisonFilter(Field(Pick(ModelIndex.Definition.Fields).Name), _random.Next(2) == 0 ? ComparisonOperator.Equal : ComparisonOperator.NotEqual, new NullValue(default), default);
            case 2:
            {
                var field = Field(Pick(Keywords));
                return new StartsWithFilter(field, Parameterize(new StringValue(Prefix(field), default)), default);
            }

            case 3:
                return new SearchFilter(Field("Notes"), Parameterize(new StringValue(string.Join(" ", List(1, 3, () => Pick(ModelData.Words))), default)), default);
            case 4:
            {
                var field = Field(Pick(new[] { "Total", "Qty", "OrderedAt", "Status", "Customer" }));
                var (low, high) = (Value(field), Value(field));
                return new BetweenFilter(field, low, high, default);
            }

            case 5:
            {
                var field = Field(Pick(Orderable));
                var values = List(1, 4, () => Value(field));
                if (_random.Next(5) == 0)
                {
                    values.Add(new NullValue(default));
                }

                if (_random.Next(5) == 0)
                {
                    // One parameter holding a JSON array: its elements are the values.
                    var literals = values.Select(v => Literal(v)).ToArray();
                    var name = "p" + _parameters.Count.ToString(CultureInfo.InvariantCulture);
                    _parameters[name] = JsonSerializer.SerializeToElement(literals);
                    return new InFilter(field, [new ParameterValue(name, default)], default);
                }

                return new InFilter(field, values, default);
            }

            case 6:
                return IdLeaf();

            default:
            {
                var field = Field(Pick(Orderable));
                return new ComparisonFilter(field, (ComparisonOperator)_random.Next(6), Value(field), default);
            }
        }
    }

    private string Prefix(FieldRef field)
    {
        var value = field.Path == "Code" ? Pick(ModelData.Codes) : Pick(ModelData.Keywords);
        return value[..Math.Min(value.Length, _random.Next(0, 4))];
    }

    /// <summary>A literal of the field's type from the pools the documents use.</summary>
    private QueryValue Value(FieldRef field)
    {
        var type = ModelIndex.Field(field.Path).Type;
        QueryValue value = type switch
        {
            IndexFieldType.Keyword => new StringValue(field.Path == "Code" ? Pick(ModelData.Codes) : Pick(ModelData.Keywords), default),
            IndexFieldType.Number => Number(_random.Next(2) == 0 ? Pick(ModelData.Numbers) : Math.Round((_random.NextDouble() * 400) - 100, 1)),
            IndexFieldType.DateTime => DateValue(),
            _ => new BoolValue(_random.Next(2) == 0, default),
        };
        return Parameterize(value);
    }

    private QueryValue DateValue()
    {
        var text = ModelData.DateText(_random, out var ticks);
        var time = new DateTime(ticks, DateTimeKind.Utc);
        return _random.Next(3) == 0
            ? Number((long)(time - DateTime.UnixEpoch).TotalMilliseconds)
            : new StringValue(time.ToString("yyyy-MM-ddTHH:mm:ss.FFFFFFF", CultureInfo.InvariantCulture) + "Z", default);
    }

    private static NumberValue Number(double value)
    {
        var text = ModelData.Num(value);
        return new NumberValue(double.Parse(text, CultureInfo.InvariantCulture), text, default);
    }

    /// <summary>Sometimes the same value as a parameter.</summary>
    private QueryValue Parameterize(QueryValue value)
    {
        if (_random.Next(5) != 0)
        {
            return value;
        }

        var name = "p" + _parameters.Count.ToString(CultureInfo.InvariantCulture);
        _parameters[name] = Literal(value);
        return new ParameterValue(name, default);
    }

    /// <summary>A literal (or an already passed parameter) as the JSON value a client would pass.</summary>
    private JsonElement Literal(QueryValue value) => value switch
    {
        StringValue s => JsonSerializer.SerializeToElement(s.Value),
        NumberValue n => JsonDocument.Parse(n.Text).RootElement.Clone(),
        BoolValue b => JsonSerializer.SerializeToElement(b.Value),
        NullValue => JsonSerializer.SerializeToElement<object?>(null),
        ParameterValue p => _parameters[p.Name],
        _ => throw new InvalidOperationException(value.GetType().Name),
    };

    private NumberValue Count(int min, int max)
    {
        var n = _random.Next(min, max + 1);
        return new NumberValue(n, n.ToString(CultureInfo.InvariantCulture), default);
    }

    private static FieldRef Field(string name) => new(name, false, default);

    private static FieldRef Id() => new(QueryFormatter.DocumentIdPath, true, default);

    private T Pick<T>(IReadOnlyList<T> items) => items[_random.Next(items.Count)];

    private List<T> List<T>(int min, int max, Func<T> item) => RandomTrees.List(_random, min, max, item);
}
