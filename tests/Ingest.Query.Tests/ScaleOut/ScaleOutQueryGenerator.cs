using System.Globalization;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Syntax;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// Random queries of every shape a scatter-gather must merge: documents (filters, projections, order by, limit,
/// offset), paged documents (continuation tokens), groups (field and time() keys; count, sum, min, max, avg; order by
/// an aggregate or a key; limit, offset), aggregates over the whole match set, facets (values and ranges).
/// </summary>
internal sealed class ScaleOutQueryGenerator
{
    private static readonly string[] Orderable = ["Status", "Customer", "Tags", "Total", "Qty", "OrderedAt", "Paid"];
    private static readonly string[] Selectable = ["Status", "Customer", "Tags", "Total", "OrderedAt", "Paid"];
    private static readonly string[] GroupKeys = ["Status", "Customer", "Tags", "Paid", "Qty"];
    private static readonly string[] Numbers = ["Total", "Qty"];
    private static readonly string[] Intervals = ["12h", "1d", "7d", "1w", "1M", "3M", "1y"];
    private static readonly string[] ValueFacets = ["Status", "Customer", "Tags", "Paid", "Qty", "Total"];

    private readonly Random _random;

    public ScaleOutQueryGenerator(Random random)
    {
        _random = random;
    }

    /// <summary>A query and whether the test pages through it with continuation tokens.</summary>
    public (ParsedQuery Query, bool Paged) Next()
    {
        var source = new QuerySource(QuerySourceKind.Index, ScaleOutIndex.Name, default);
        var where = _random.Next(4) == 0 ? null : RandomTrees.Filter(_random, _random.Next(1, 4), Leaf);
        return _random.Next(10) switch
        {
            < 3 => (Documents(source, where), false),
            < 5 => (Paged(source, where), true),
            < 8 => (Grouped(source, where), false),
            8 => (new ParsedQuery(source, where, [], Distinct(RandomTrees.List(_random, 1, 4, Aggregate)), [], null, null), false),
            _ => (new ParsedQuery(source, where, [], Distinct(RandomTrees.List(_random, 1, 3, Facet)), [], null, null), false),
        };
    }

    private ParsedQuery Documents(QuerySource source, QueryFilter? where)
    {
        IReadOnlyList<SelectItem> select = _random.Next(3) == 0 ? Distinct(RandomTrees.List(_random, 1, 3, Projection)) : [];
        IReadOnlyList<OrderByItem> orderBy = _random.Next(4) == 0 ? [] : OrderKeys();
        return new ParsedQuery(source, where, [], select, orderBy, _random.Next(4) == 0 ? null : Count(0, 40), _random.Next(2) == 0 ? Count(0, 50) : null);
    }

    private ParsedQuery Paged(QuerySource source, QueryFilter? where)
    {
        IReadOnlyList<SelectItem> select = _random.Next(4) == 0 ? Distinct(RandomTrees.List(_random, 1, 3, Projection)) : [];
        IReadOnlyList<OrderByItem> orderBy = _random.Next(5) == 0 ? [] : OrderKeys();
        return new ParsedQuery(source, where, [], select, orderBy, Count(10, 80), null);
    }

    private List<OrderByItem> OrderKeys()
    {
        var keys = new List<OrderByItem>();
        for (var n = _random.Next(1, 3); n > 0; n--)
        {
            var field = _random.Next(8) == 0 ? new FieldRef(QueryFormatter.DocumentIdPath, true, default) : Field(Pick(Orderable));
            if (!keys.Any(k => k.Field!.Path == field.Path))
            {
                keys.Add(new OrderByItem(field, null, _random.Next(2) == 0, OrderByType.Default, default));
            }
        }

        return keys;
    }

    private ParsedQuery Grouped(QuerySource source, QueryFilter? where)
    {
        var groupBy = new List<GroupByItem>();
        for (var n = _random.Next(1, 3); n > 0; n--)
        {
            if (_random.Next(3) == 0 && !groupBy.Any(g => g is TimeGroupBy))
            {
                groupBy.Add(new TimeGroupBy(Field("OrderedAt"), new StringValue(Pick(Intervals), default), default));
            }
            else if (Pick(GroupKeys) is var name && !groupBy.Any(g => g is FieldGroupBy f && f.Field.Path == name))
            {
                groupBy.Add(new FieldGroupBy(Field(name), default));
            }
        }

        var select = new List<SelectItem>();
        foreach (var key in groupBy.OfType<FieldGroupBy>())
        {
            if (_random.Next(2) == 0)
            {
                select.Add(new FieldSelect(key.Field, _random.Next(3) == 0 ? "k_" + key.Field.Path : key.Field.Path, default));
            }
        }

        select.AddRange(RandomTrees.List(_random, 1, 3, Aggregate));
        var orderBy = new List<OrderByItem>();
        if (_random.Next(2) == 0)
        {
            var firstKey = groupBy.OfType<FieldGroupBy>().FirstOrDefault();
            orderBy.Add(_random.Next(3) != 0 || firstKey == null
                ? new OrderByItem(null, _random.Next(3) switch
                {
                    0 => NewAggregate(AggregateFunction.Count, null),
                    1 => NewAggregate(AggregateFunction.Sum, Field("Total")),
                    _ => NewAggregate(AggregateFunction.Avg, Field(Pick(Numbers))),
                }, _random.Next(2) == 0, OrderByType.Default, default)
                : new OrderByItem(firstKey.Field, null, _random.Next(2) == 0, OrderByType.Default, default));
        }

        return new ParsedQuery(source, where, groupBy, Distinct(select), orderBy, _random.Next(3) == 0 ? Count(0, 10) : null, _random.Next(4) == 0 ? Count(0, 10) : null);
    }

    private AggregateSelect Aggregate() => _random.Next(7) switch
    {
        0 => NewAggregate(AggregateFunction.Count, null),
        1 => NewAggregate(AggregateFunction.Count, Field(Pick(Orderable))),
        2 => NewAggregate(AggregateFunction.Sum, Field(Pick(Numbers))),
        3 or 4 => NewAggregate(AggregateFunction.Avg, Field(Pick(Numbers))),
        5 => NewAggregate(AggregateFunction.Min, Field(_random.Next(3) == 0 ? "OrderedAt" : Pick(Numbers))),
        _ => NewAggregate(AggregateFunction.Max, Field(_random.Next(3) == 0 ? "OrderedAt" : Pick(Numbers))),
    };

    private static AggregateSelect NewAggregate(AggregateFunction function, FieldRef? field) =>
        new(function, field, QueryFormatter.FormatAggregate(function, field), default);

    private FacetSelect Facet()
    {
        if (_random.Next(3) == 0)
        {
            var bounds = new SortedSet<double>();
            for (var n = _random.Next(1, 4); n > 0; n--)
            {
                bounds.Add(Pick(new double[] { -1, 0, 2.5, 5, 50, 100, 150 }));
            }

            var field = Field(Pick(Numbers));
            var ranges = bounds.Select(b => (QueryValue)Number(b)).ToList();
            return new FacetSelect(field, ranges, QueryFormatter.FormatFacet(field, ranges), default);
        }

        var valueField = Field(Pick(ValueFacets));
        return new FacetSelect(valueField, [], QueryFormatter.FormatFacet(valueField, []), default);
    }

    private SelectItem Projection()
    {
        var field = _random.Next(5) == 0 ? new FieldRef(QueryFormatter.DocumentIdPath, true, default) : Field(Pick(Selectable));
        return new FieldSelect(field, QueryFormatter.DefaultName(field), default);
    }

    private QueryFilter Leaf()
    {
        switch (_random.Next(9))
        {
            case 0:
                return new ExistsFilter(Field(Pick(Orderable)), default);
            case 1:
                return new StartsWithFilter(Field("Customer"), new StringValue(Pick(ScaleOutData.Customers)[..1], default), default);
            case 2:
                return new SearchFilter(Field("Notes"), new StringValue(Pick(ScaleOutData.Words), default), default);
            case 3:
            {
                var field = Field(Pick(new[] { "Total", "Qty", "OrderedAt" }));
                var (low, high) = (Value(field), Value(field));
                return new BetweenFilter(field, low, high, default);
            }

            case 4:
            {
                var field = Field(Pick(Orderable));
                return new InFilter(field, RandomTrees.List(_random, 1, 3, () => Value(field)), default);
            }

            default:
            {
                var field = Field(Pick(Orderable));
                return new ComparisonFilter(field, (ComparisonOperator)_random.Next(6), Value(field), default);
            }
        }
    }

    private QueryValue Value(FieldRef field) => ScaleOutIndex.Field(field.Path).Type switch
    {
        IndexFieldType.Keyword => new StringValue(Pick(field.Path switch { "Status" => ScaleOutData.Statuses, "Customer" => ScaleOutData.Customers, _ => ScaleOutData.Tags }), default),
        IndexFieldType.Number => Number(field.Path == "Qty" ? _random.Next(0, 11) : _random.Next(-20, 800) / 4.0),
        IndexFieldType.DateTime => new StringValue(ScaleOutData.DateText(ScaleOutData.RandomInstant(_random)), default),
        _ => new BoolValue(_random.Next(2) == 0, default),
    };

    private static NumberValue Number(double value) => new(value, value.ToString("R", CultureInfo.InvariantCulture), default);

    private NumberValue Count(int min, int max)
    {
        var n = _random.Next(min, max + 1);
        return new NumberValue(n, n.ToString(CultureInfo.InvariantCulture), default);
    }

    /// <summary>Leaves the first item of each name: result objects cannot hold a property twice.</summary>
    private static List<SelectItem> Distinct<T>(List<T> items)
        where T : SelectItem => items.Cast<SelectItem>().GroupBy(i => i.Name, StringComparer.OrdinalIgnoreCase).Select(g => g.First()).ToList();

    private static FieldRef Field(string name) => new(name, false, default);

    private T Pick<T>(IReadOnlyList<T> items) => items[_random.Next(items.Count)];
}
