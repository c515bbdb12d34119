using System.Text;

namespace Ingest.Query.Syntax;

/// <summary>
/// Writes a query back as canonical text: keywords lower-case, single spaces, names quoted only when needed, aliases
/// only when they differ from the default name. <c>QueryParser.Parse(Format(q))</c> equals <c>q</c> but for positions.
/// </summary>
public static class QueryFormatter
{
    /// <summary><see cref="FieldRef.Path"/> of the document id.</summary>
    public const string DocumentIdPath = "id()";

    /// <summary>The result column of a selected document id unless aliased.</summary>
    public const string DocumentIdName = "Id";

    public static string Format(ParsedQuery query)
    {
        ArgumentNullException.ThrowIfNull(query);
        var text = new StringBuilder("from ");
        if (query.Source.Kind == QuerySourceKind.Index)
        {
            text.Append("index ");
            AppendString(text, query.Source.Name);
        }
        else
        {
            AppendName(text, query.Source.Name);
        }

        if (query.Where != null)
        {
            text.Append(" where ");
            AppendFilter(text, query.Where);
        }

        AppendList(text, " group by ", query.GroupBy, AppendGroupByItem);
        AppendList(text, " select ", query.Select, AppendSelectItem);
        AppendList(text, " order by ", query.OrderBy, AppendOrderByItem);
        if (query.Limit != null)
        {
            text.Append(" limit ");
            AppendValue(text, query.Limit);
        }

        if (query.Offset != null)
        {
            text.Append(" offset ");
            AppendValue(text, query.Offset);
        }

        return text.ToString();
    }

    /// <summary>A field as written in a query: <c>id()</c>, <c>Customer.Name</c>, <c>"Ship to".Zip</c>, <c>Lines[].Sku</c>.</summary>
    public static string FormatField(FieldRef field)
    {
        ArgumentNullException.ThrowIfNull(field);
        var text = new StringBuilder();
        AppendField(text, field);
        return text.ToString();
    }

    /// <summary>A selected field's column name when it has no alias.</summary>
    public static string DefaultName(FieldRef field)
    {
        ArgumentNullException.ThrowIfNull(field);
        return field.IsDocumentId ? DocumentIdName : FormatField(field);
    }

    /// <summary><c>count()</c>, <c>count(F)</c>, <c>sum(F)</c>, ...: also an aggregate's column name when it has no alias.</summary>
    public static string FormatAggregate(AggregateFunction function, FieldRef? field)
    {
        var text = new StringBuilder();
        AppendAggregate(text, function, field);
        return text.ToString();
    }

    /// <summary><c>facet(F)</c> or <c>facet(F, ranges(a, b))</c>: also a facet's name when it has no alias.</summary>
    public static string FormatFacet(FieldRef field, IReadOnlyList<QueryValue> ranges)
    {
        ArgumentNullException.ThrowIfNull(field);
        ArgumentNullException.ThrowIfNull(ranges);
        var text = new StringBuilder();
        AppendFacet(text, field, ranges);
        return text.ToString();
    }

    public static string FormatFilter(QueryFilter filter)
    {
        ArgumentNullException.ThrowIfNull(filter);
        var text = new StringBuilder();
        AppendFilter(text, filter);
        return text.ToString();
    }

    public static string FormatValue(QueryValue value)
    {
        ArgumentNullException.ThrowIfNull(value);
        var text = new StringBuilder();
        AppendValue(text, value);
        return text.ToString();
    }

    private static void AppendList<T>(StringBuilder text, string clause, IReadOnlyList<T> items, Action<StringBuilder, T> append)
    {
        for (var i = 0; i < items.Count; i++)
        {
            text.Append(i == 0 ? clause : ", ");
            append(text, items[i]);
        }
    }

    private static void AppendFilter(StringBuilder text, QueryFilter filter)
    {
        switch (filter)
        {
            case ComparisonFilter c:
                AppendField(text, c.Field);
                text.Append(c.Operator switch
                {
                    ComparisonOperator.Equal => " = ",
                    ComparisonOperator.NotEqual => " != ",
                    ComparisonOperator.Less => " < ",
                    ComparisonOperator.LessOrEqual => " <= ",
                    ComparisonOperator.Greater => " > ",
                    ComparisonOperator.GreaterOrEqual => " >= ",
                    _ => throw new ArgumentOutOfRangeException(nameof(filter), c.Operator, "unknown operator"),
                });
                AppendValue(text, c.Value);
                break;
            case BetweenFilter b:
                AppendField(text, b.Field);
                text.Append(" between ");
                AppendValue(text, b.Low);
                text.Append(" and ");
                AppendValue(text, b.High);
                break;
            case InFilter i:
                AppendField(text, i.Field);
                text.Append(" in (");
                AppendValues(text, i.Values);
                text.Append(')');
                break;
            case StartsWithFilter s:
                AppendFunction(text, "startsWith", s.Field, s.Prefix);
                break;
            case SearchFilter s:
                AppendFunction(text, "search", s.Field, s.Words);
                break;
            case ExistsFilter e:
                text.Append("exists(");
                AppendField(text, e.Field);
                text.Append(')');
                break;
            case NotFilter n:
                text.Append("not ");
                AppendOperand(text, n.Operand, n.Operand is AndFilter or OrFilter);
                break;
            case AndFilter or OrFilter:
                AppendChain(text, filter);
                break;
            default:
                throw new ArgumentException($"unknown filter {filter.GetType().Name}", nameof(filter));
        }
    }

    /// <summary>
    /// An <c>and</c>/<c>or</c> node. The parser builds a chain <c>a and b and c</c> as a balanced tree
    /// (<see cref="QueryParser.Balance"/>); a tree of that shape is written as the flat chain, any other shape as
    /// <c>(left) and (right)</c> with its same-operator operands in parentheses, so parsing gives the same tree back.
    /// </summary>
    private static void AppendChain(StringBuilder text, QueryFilter filter)
    {
        var isAnd = filter is AndFilter;
        var separator = isAnd ? " and " : " or ";
        if (BalancedOperandCount(filter, isAnd) > 0)
        {
            var operands = new List<QueryFilter>();
            CollectOperands(filter, isAnd, operands);
            for (var i = 0; i < operands.Count; i++)
            {
                if (i > 0)
                {
                    text.Append(separator);
                }

                AppendOperand(text, operands[i], isAnd && operands[i] is OrFilter);
            }

            return;
        }

        var (left, right) = Children(filter);
        AppendOperand(text, left, left is AndFilter or OrFilter);
        text.Append(separator);
        AppendOperand(text, right, right is AndFilter or OrFilter);
    }

    /// <summary>The number of operands when the subtree is a chain as the parser balances it, else -1.</summary>
    private static int BalancedOperandCount(QueryFilter filter, bool isAnd)
    {
        if (!IsChainNode(filter, isAnd))
        {
            return 1;
        }

        var (left, right) = Children(filter);
        var leftCount = BalancedOperandCount(left, isAnd);
        var rightCount = BalancedOperandCount(right, isAnd);
        if (leftCount < 0 || rightCount < 0 || leftCount != QueryParser.LeftShare(leftCount + rightCount))
        {
            return -1;
        }

        return leftCount + rightCount;
    }

    private static void CollectOperands(QueryFilter filter, bool isAnd, List<QueryFilter> operands)
    {
        if (!IsChainNode(filter, isAnd))
        {
            operands.Add(filter);
            return;
        }

        var (left, right) = Children(filter);
        CollectOperands(left, isAnd, operands);
        CollectOperands(right, isAnd, operands);
    }

    private static bool IsChainNode(QueryFilter filter, bool isAnd) => isAnd ? filter is AndFilter : filter is OrFilter;

    private static (QueryFilter Left, QueryFilter Right) Children(QueryFilter filter) => filter switch
    {
        AndFilter a => (a.Left, a.Right),
        OrFilter o => (o.Left, o.Right),
        _ => throw new ArgumentException("not an and/or", nameof(filter)),
    };

    private static void AppendOperand(StringBuilder text, QueryFilter operand, bool parenthesize)
    {
        if (parenthesize)
        {
            text.Append('(');
        }

        AppendFilter(text, operand);
        if (parenthesize)
        {
            text.Append(')');
        }
    }

    private static void AppendFunction(StringBuilder text, string function, FieldRef field, QueryValue value)
    {
        text.Append(function).Append('(');
        AppendField(text, field);
        text.Append(", ");
        AppendValue(text, value);
        text.Append(')');
    }

    private static void AppendGroupByItem(StringBuilder text, GroupByItem item)
    {
        switch (item)
        {
            case FieldGroupBy f:
                AppendField(text, f.Field);
                break;
            case TimeGroupBy t:
                AppendFunction(text, "time", t.Field, t.Interval);
                break;
            default:
                throw new ArgumentException($"unknown group by item {item.GetType().Name}", nameof(item));
        }
    }

    private static void AppendSelectItem(StringBuilder text, SelectItem item)
    {
        string defaultName;
        var start = text.Length;
        switch (item)
        {
            case FieldSelect f:
                AppendField(text, f.Field);
                defaultName = DefaultName(f.Field);
                break;
            case AggregateSelect a:
                AppendAggregate(text, a.Function, a.Field);
                defaultName = text.ToString(start, text.Length - start);
                break;
            case FacetSelect f:
                AppendFacet(text, f.Field, f.Ranges);
                defaultName = text.ToString(start, text.Length - start);
                break;
            default:
                throw new ArgumentException($"unknown select item {item.GetType().Name}", nameof(item));
        }

        if (item.Name != defaultName)
        {
            text.Append(" as ");
            AppendName(text, item.Name);
        }
    }

    private static void AppendOrderByItem(StringBuilder text, OrderByItem item)
    {
        if (item.Aggregate != null)
        {
            AppendAggregate(text, item.Aggregate.Function, item.Aggregate.Field);
        }
        else if (item.Field != null)
        {
            AppendField(text, item.Field);
        }
        else
        {
            throw new ArgumentException("an order by item needs a field or an aggregate", nameof(item));
        }

        text.Append(item.Type switch
        {
            OrderByType.Number => " as number",
            OrderByType.String => " as string",
            _ => "",
        });
        if (item.Descending)
        {
            text.Append(" desc");
        }
    }

    private static void AppendAggregate(StringBuilder text, AggregateFunction function, FieldRef? field)
    {
        text.Append(function switch
        {
            AggregateFunction.Count => "count(",
            AggregateFunction.Sum => "sum(",
            AggregateFunction.Avg => "avg(",
            AggregateFunction.Min => "min(",
            AggregateFunction.Max => "max(",
            _ => throw new ArgumentOutOfRangeException(nameof(function), function, null),
        });
        if (field != null)
        {
            AppendField(text, field);
        }

        text.Append(')');
    }

    private static void AppendFacet(StringBuilder text, FieldRef field, IReadOnlyList<QueryValue> ranges)
    {
        text.Append("facet(");
        AppendField(text, field);
        if (ranges.Count > 0)
        {
            text.Append(", ranges(");
            AppendValues(text, ranges);
            text.Append(')');
        }

        text.Append(')');
    }

    private static void AppendValues(StringBuilder text, IReadOnlyList<QueryValue> values)
    {
        for (var i = 0; i < values.Count; i++)
        {
            if (i > 0)
            {
                text.Append(", ");
            }

            AppendValue(text, values[i]);
        }
    }

    private static void AppendValue(StringBuilder text, QueryValue value)
    {
        switch (value)
        {
            case StringValue s:
                AppendString(text, s.Value);
                break;
            case NumberValue n:
                text.Append(n.Text);
                break;
            case BoolValue b:
                text.Append(b.Value ? "true" : "false");
                break;
            case NullValue:
                text.Append("null");
                break;
            case ParameterValue p:
                text.Append('$').Append(p.Name);
                break;
            default:
                throw new ArgumentException($"unknown value {value.GetType().Name}", nameof(value));
        }
    }

    private static void AppendString(StringBuilder text, string value) =>
        text.Append('\'').Append(value.Replace("'", "''", StringComparison.Ordinal)).Append('\'');

    private static void AppendField(StringBuilder text, FieldRef field)
    {
        if (field.IsDocumentId)
        {
            text.Append(DocumentIdPath);
            return;
        }

        var segments = FieldPathSyntax.Split(field.Path);
        for (var i = 0; i < segments.Count; i++)
        {
            var (name, arrays) = segments[i];
            if (i > 0)
            {
                text.Append('.');
            }

            // A lone bare 'Id' means the document id; the property is written quoted.
            var isIdProperty = segments.Count == 1 && arrays == 0 && name.Equals("id", StringComparison.OrdinalIgnoreCase);
            if (isIdProperty)
            {
                FieldPathSyntax.AppendQuoted(text, name);
            }
            else
            {
                AppendName(text, name);
            }

            for (var a = 0; a < arrays; a++)
            {
                text.Append("[]");
            }
        }
    }

    private static void AppendName(StringBuilder text, string name)
    {
        if (QueryLexer.IsBareIdentifier(name))
        {
            text.Append(name);
        }
        else
        {
            FieldPathSyntax.AppendQuoted(text, name);
        }
    }
}
