using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// Binds <c>from index 'X'</c> on a map-reduce index: the index's rows are its groups, with one column per group key
/// and aggregate (by their names in the definition, case-insensitive). <c>where</c> tests columns, <c>select</c> picks
/// and renames them (all of them by default, keys first), <c>order by</c> sorts by them. Literals are read as the
/// column's values are: a keyword key folds them as the index folds its terms, a time key or datetime min/max takes
/// ISO 8601 strings or epoch milliseconds, counts and sums take numbers.
/// </summary>
internal static class GroupRowBinder
{
    public static GroupRowQuery Bind(ParsedQuery query, IndexDefinition definition, QueryParameters parameters)
    {
        var reduce = definition.Reduce!;
        if (query.GroupBy.Count > 0)
        {
            throw new QueryException(query.GroupBy[0].Position, $"index '{definition.Name}' is a map-reduce index, already grouped by {KeyNames(reduce)}; filter and sort its columns without 'group by'");
        }

        var columns = Columns(definition);
        var select = new List<(int Column, string Name)>();
        foreach (var item in query.Select)
        {
            if (item is not FieldSelect field)
            {
                throw new QueryException(item.Position, $"index '{definition.Name}' is a map-reduce index: select its columns ({Names(columns)}), not '{item.Name}'");
            }

            select.Add((Find(columns, field.Field, definition), field.Name));
        }

        if (select.Count == 0)
        {
            for (var c = 0; c < columns.Count; c++)
            {
                select.Add((c, columns[c].Name));
            }
        }

        var order = new List<(int Column, bool Descending)>();
        foreach (var item in query.OrderBy)
        {
            if (item.Field is null)
            {
                throw new QueryException(item.Position, $"index '{definition.Name}' is a map-reduce index: order by its columns ({Names(columns)})");
            }

            order.Add((Find(columns, item.Field, definition), item.Descending));
        }

        var where = query.Where == null ? null : BindCondition(query.Where, columns, definition, parameters);
        return new GroupRowQuery(columns, select, order, where);
    }

    internal static List<GroupColumn> Columns(IndexDefinition definition)
    {
        var reduce = definition.Reduce!;
        var columns = new List<GroupColumn>();
        for (var k = 0; k < reduce.GroupBy.Count; k++)
        {
            var field = FieldOf(definition, reduce.GroupBy[k].Field);
            var type = field.Type switch
            {
                IndexFieldType.Number => QueryColumnType.Number,
                IndexFieldType.DateTime => QueryColumnType.DateTime,
                IndexFieldType.Bool => QueryColumnType.Bool,
                _ => QueryColumnType.String,
            };
            columns.Add(new GroupColumn(reduce.GroupBy[k].Name, true, k, type, field.Type == IndexFieldType.Keyword && !field.ExactCase));
        }

        for (var a = 0; a < reduce.Aggregates.Count; a++)
        {
            var aggregate = reduce.Aggregates[a];
            var type = aggregate.Kind is AggregateKind.Min or AggregateKind.Max && FieldOf(definition, aggregate.Field!).Type == IndexFieldType.DateTime
                ? QueryColumnType.DateTime
                : QueryColumnType.Number;
            columns.Add(new GroupColumn(aggregate.Name, false, a, type, false, aggregate.Kind == AggregateKind.Sum));
        }

        return columns;
    }

    internal static GroupCondition BindCondition(QueryFilter filter, List<GroupColumn> columns, IndexDefinition definition, QueryParameters parameters)
    {
        switch (filter)
        {
            case AndFilter and:
                return new GroupCondition(GroupConditionKind.And, -1, [], BindCondition(and.Left, columns, definition, parameters), BindCondition(and.Right, columns, definition, parameters));
            case OrFilter or:
                return new GroupCondition(GroupConditionKind.Or, -1, [], BindCondition(or.Left, columns, definition, parameters), BindCondition(or.Right, columns, definition, parameters));
            case NotFilter not:
                return new GroupCondition(GroupConditionKind.Not, -1, [], BindCondition(not.Operand, columns, definition, parameters));
            case ExistsFilter exists:
                return new GroupCondition(GroupConditionKind.Exists, Find(columns, exists.Field, definition), []);
            case ComparisonFilter comparison:
            {
                var c = Find(columns, comparison.Field, definition);
                var kind = comparison.Operator switch
                {
                    ComparisonOperator.Equal => GroupConditionKind.Equal,
                    ComparisonOperator.NotEqual => GroupConditionKind.NotEqual,
                    ComparisonOperator.Less => GroupConditionKind.Less,
                    ComparisonOperator.LessOrEqual => GroupConditionKind.LessOrEqual,
                    ComparisonOperator.Greater => GroupConditionKind.Greater,
                    _ => GroupConditionKind.GreaterOrEqual,
                };
                return new GroupCondition(kind, c, [Value(comparison.Value, columns[c], comparison.Field, parameters)]);
            }

            case BetweenFilter between:
            {
                var c = Find(columns, between.Field, definition);
                return new GroupCondition(GroupConditionKind.Between, c, [Value(between.Low, columns[c], between.Field, parameters), Value(between.High, columns[c], between.Field, parameters)]);
            }

            case InFilter @in:
            {
                var c = Find(columns, @in.Field, definition);
                return new GroupCondition(GroupConditionKind.In, c, [.. parameters.ResolveList(@in.Values).Select(v => Value(v, columns[c], @in.Field, parameters))]);
            }

            case StartsWithFilter startsWith:
            {
                var c = Find(columns, startsWith.Field, definition);
                if (columns[c].Type != QueryColumnType.String)
                {
                    throw new QueryException(startsWith.Position, $"startsWith needs a string column; '{columns[c].Name}' of index '{definition.Name}' is not one");
                }

                return new GroupCondition(GroupConditionKind.StartsWith, c, [Value(startsWith.Prefix, columns[c], startsWith.Field, parameters)]);
            }

            default:
                throw new QueryException(filter.Position, $"index '{definition.Name}' is a map-reduce index: its rows can be compared (=, !=, <, <=, >, >=, between, in), tested with exists() and startsWith(), not searched");
        }
    }

    /// <summary>A literal as the column holds it; null stays null (<c>Status = null</c>: the group of documents without a status).</summary>
    private static object? Value(QueryValue value, GroupColumn column, FieldRef reference, QueryParameters parameters)
    {
        var literal = parameters.Resolve(value);
        if (literal is NullValue)
        {
            return null;
        }

        var type = column.Type switch
        {
            QueryColumnType.Number => IndexFieldType.Number,
            QueryColumnType.DateTime => IndexFieldType.DateTime,
            QueryColumnType.Bool => IndexFieldType.Bool,
            _ => IndexFieldType.Keyword,
        };
        var field = new BoundField(reference, -1, new IndexFieldDefinition(column.Name, column.Name, type, ExactCase: !column.FoldsCase));
        return type switch
        {
            IndexFieldType.Number => literal is NumberValue n ? n.Value : ValueBinder.EncodeTerm(literal, field), // the binder's error names the column
            IndexFieldType.DateTime => new DateTime(ValueBinder.ReadDateTimeTicks(literal, field), DateTimeKind.Utc),
            IndexFieldType.Bool => ValueBinder.EncodeTerm(literal, field)[0] != 0,
            _ => Encoding.UTF8.GetString(ValueBinder.EncodeTerm(literal, field)),
        };
    }

    private static int Find(List<GroupColumn> columns, FieldRef field, IndexDefinition definition)
    {
        for (var c = 0; c < columns.Count; c++)
        {
            if (string.Equals(columns[c].Name, field.Path, StringComparison.OrdinalIgnoreCase))
            {
                return c;
            }
        }

        throw new QueryException(field.Position, $"index '{definition.Name}' has no column '{field.Path}'; its columns are {Names(columns)}");
    }

    private static IndexFieldDefinition FieldOf(IndexDefinition definition, string name) =>
        definition.Fields.First(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase));

    private static string Names(List<GroupColumn> columns) => string.Join(", ", columns.Select(c => c.Name));

    private static string KeyNames(ReduceDefinition reduce) =>
        reduce.GroupBy.Count == 0 ? "nothing (one group)" : string.Join(", ", reduce.GroupBy.Select(k => k.Name));
}
