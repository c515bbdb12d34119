using System.Globalization;
using System.Text;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>
/// Builds random syntax trees over the whole grammar: odd names (Unicode, keywords, spaces, quotes, a property called
/// Id), every value kind, every clause, any and/or shape. Trees are canonical (default names computed, numbers' Text
/// parses to their Value), so <c>Parse(Format(tree))</c> must give the tree back.
/// </summary>
internal sealed class RandomQueryGenerator
{
    private static readonly string[] Names =
    [
        "Total", "Status", "Customer", "Name", "Lines", "Sku", "x", "_y", "@meta", "a1", "Straße", "名前", "e\u0301", "Ω",
        "Ship to", "a\"b", "a\\b", "a.b", "x[]", "1st", "order", "FROM", "Index", "id", "Id", "count", "time", "😀", "tab\there",
        "it's", "back`tick", "$x", "-", " ",
    ];

    private readonly Random _random;

    public RandomQueryGenerator(Random random)
    {
        _random = random;
    }

    public ParsedQuery Query()
    {
        var source = _random.Next(4) == 0
            ? new QuerySource(QuerySourceKind.Index, RandomString(), default)
            : new QuerySource(QuerySourceKind.Collection, Name(), default);
        var where = _random.Next(3) == 0 ? null : Filter(_random.Next(1, 6));
        var groupBy = _random.Next(4) == 0 ? List(1, 3, GroupByItem) : [];
        var select = _random.Next(2) == 0 ? List(1, 5, SelectItem) : [];
        var orderBy = _random.Next(3) == 0 ? List(1, 3, OrderByItem) : [];
        var limit = _random.Next(3) == 0 ? Count() : null;
        var offset = _random.Next(4) == 0 ? Count() : null;
        return new ParsedQuery(source, where, groupBy, select, orderBy, limit, offset);
    }

    public QueryFilter Filter(int depth) => RandomTrees.Filter(_random, depth, Leaf);

    private QueryFilter Leaf() => _random.Next(7) switch
    {
        0 => new ComparisonFilter(Field(), (ComparisonOperator)_random.Next(6), Value(), default),
        1 => new BetweenFilter(Field(), Value(), Value(), default),
        2 => new InFilter(Field(), List(1, 4, Value), default),
        3 => new StartsWithFilter(Field(), Value(), default),
        4 => new SearchFilter(Field(), Value(), default),
        5 => new ExistsFilter(Field(), default),
        _ => new ComparisonFilter(Field(), ComparisonOperator.Equal, Value(), default),
    };

    private GroupByItem GroupByItem() => _random.Next(3) == 0
        ? new TimeGroupBy(Field(), Value(), default)
        : new FieldGroupBy(Field(), default);

    private SelectItem SelectItem()
    {
        SelectItem item;
        switch (_random.Next(3))
        {
            case 0:
            {
                var field = Field();
                item = new FieldSelect(field, QueryFormatter.DefaultName(field), default);
                break;
            }

            case 1:
                item = Aggregate();
                break;
            default:
            {
                var field = Field();
                IReadOnlyList<QueryValue> ranges = _random.Next(2) == 0 ? [] : List(1, 4, Value);
                item = new FacetSelect(field, ranges, QueryFormatter.FormatFacet(field, ranges), default);
                break;
            }
        }

        return _random.Next(4) == 0 ? item with { Name = Name() } : item;
    }

    private AggregateSelect Aggregate()
    {
        var function = (AggregateFunction)_random.Next(5);
        var field = function == AggregateFunction.Count && _random.Next(2) == 0 ? null : Field();
        return new AggregateSelect(function, field, QueryFormatter.FormatAggregate(function, field), default);
    }

    private OrderByItem OrderByItem()
    {
        var aggregate = _random.Next(4) == 0 ? Aggregate() : null;
        return new OrderByItem(aggregate == null ? Field() : null, aggregate, _random.Next(2) == 0, (OrderByType)_random.Next(3), default);
    }

    public FieldRef Field()
    {
        if (_random.Next(10) == 0)
        {
            return new FieldRef(QueryFormatter.DocumentIdPath, true, default);
        }

        var path = new StringBuilder();
        var segments = _random.Next(1, 4);
        for (var i = 0; i < segments; i++)
        {
            if (i > 0)
            {
                path.Append('.');
            }

            FieldPathSyntax.AppendName(path, Name());
            for (var a = _random.Next(4) == 0 ? _random.Next(1, 3) : 0; a > 0; a--)
            {
                path.Append("[]");
            }
        }

        return new FieldRef(path.ToString(), false, default);
    }

    public QueryValue Value() => _random.Next(6) switch
    {
        0 => new StringValue(RandomString(), default),
        1 or 2 => Number(),
        3 => new BoolValue(_random.Next(2) == 0, default),
        4 => new NullValue(default),
        _ => new ParameterValue(ParameterName(), default),
    };

    private NumberValue Number()
    {
        var text = new StringBuilder();
        if (_random.Next(3) == 0)
        {
            text.Append('-');
        }

        if (_random.Next(4) == 0)
        {
            text.Append('0');
        }
        else
        {
            text.Append((char)('1' + _random.Next(9)));
            for (var i = _random.Next(_random.Next(2) == 0 ? 3 : 25); i > 0; i--)
            {
                text.Append((char)('0' + _random.Next(10)));
            }
        }

        if (_random.Next(3) == 0)
        {
            text.Append('.');
            for (var i = _random.Next(1, 5); i > 0; i--)
            {
                text.Append((char)('0' + _random.Next(10)));
            }
        }

        if (_random.Next(5) == 0)
        {
            text.Append(_random.Next(2) == 0 ? 'e' : 'E').Append(_random.Next(3) switch { 0 => "+", 1 => "-", _ => "" }).Append(_random.Next(40));
        }

        var written = text.ToString();
        return new NumberValue(double.Parse(written, NumberStyles.Float, CultureInfo.InvariantCulture), written, default);
    }

    private QueryValue Count()
    {
        if (_random.Next(3) == 0)
        {
            return new ParameterValue(ParameterName(), default);
        }

        var n = _random.Next(1000);
        return new NumberValue(n, n.ToString(CultureInfo.InvariantCulture), default);
    }

    private string Name() => Names[_random.Next(Names.Length)];

    private string ParameterName() => _random.Next(4) switch
    {
        0 => "from",
        1 => "p" + _random.Next(100).ToString(CultureInfo.InvariantCulture),
        2 => "ü_1",
        _ => "1",
    };

    public string RandomString()
    {
        var length = _random.Next(8);
        var text = new StringBuilder();
        for (var i = 0; i < length; i++)
        {
            text.Append(_random.Next(8) switch
            {
                0 => "'",
                1 => "é",
                2 => "😀",
                3 => "\n",
                4 => " ",
                5 => "İ",
                _ => ((char)('a' + _random.Next(26))).ToString(),
            });
        }

        return text.ToString();
    }

    private List<T> List<T>(int min, int max, Func<T> item) => RandomTrees.List(_random, min, max, item);
}
