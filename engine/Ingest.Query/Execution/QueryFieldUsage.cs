using System.Text.Json;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// Lists the fields a query names, with how each is used and the literal kinds it meets, in order of first appearance
/// (paths compared case-insensitively, as binding compares them with index field names). For choosing a static index or
/// building an automatic one. A query whose list has no <see cref="QueryFieldRequirement.NeedsIndexField"/> entry runs
/// as a collection scan.
/// </summary>
public static class QueryFieldUsage
{
    /// <exception cref="QueryException">Only for a filter nested deeper than the parser allows.</exception>
    public static IReadOnlyList<QueryFieldRequirement> Collect(ParsedQuery query, QueryParameters parameters)
    {
        ArgumentNullException.ThrowIfNull(query);
        ArgumentNullException.ThrowIfNull(parameters);
        var collector = new Collector(parameters);
        if (query.Where != null)
        {
            collector.Filter(query.Where, 0);
        }

        foreach (var group in query.GroupBy)
        {
            switch (group)
            {
                case FieldGroupBy f:
                    collector.Add(f.Field, FieldUsages.Group, null);
                    break;
                case TimeGroupBy t:
                    collector.Add(t.Field, FieldUsages.Time, null);
                    break;
            }
        }

        foreach (var item in query.Select)
        {
            switch (item)
            {
                case FieldSelect f:
                    collector.Add(f.Field, query.GroupBy.Count > 0 ? FieldUsages.Group : FieldUsages.Select, null);
                    break;
                case AggregateSelect { Field: not null } a:
                    collector.Add(a.Field, UsageOf(a.Function), null);
                    break;
                case FacetSelect facet:
                    collector.Add(facet.Field, facet.Ranges.Count > 0 ? FieldUsages.RangeFacet : FieldUsages.Facet, null);
                    foreach (var bound in facet.Ranges)
                    {
                        collector.Add(facet.Field, FieldUsages.None, bound);
                    }

                    break;
            }
        }

        foreach (var order in query.OrderBy)
        {
            if (order.Field != null)
            {
                collector.Add(order.Field, FieldUsages.Order, null);
            }
            else if (order.Aggregate?.Field is { } field)
            {
                collector.Add(field, UsageOf(order.Aggregate.Function), null);
            }
        }

        return collector.Result;
    }

    private static FieldUsages UsageOf(AggregateFunction function) => function switch
    {
        AggregateFunction.Sum or AggregateFunction.Avg => FieldUsages.Sum,
        AggregateFunction.Min or AggregateFunction.Max => FieldUsages.MinMax,
        _ => FieldUsages.Count,
    };

    private sealed class Collector(QueryParameters parameters)
    {
        private const int MaxDepth = 256;

        public List<QueryFieldRequirement> Result { get; } = [];

        public void Filter(QueryFilter filter, int depth)
        {
            if (depth > MaxDepth)
            {
                throw new QueryException(filter.Position, $"the condition is nested more than {MaxDepth} levels deep");
            }

            switch (filter)
            {
                case AndFilter and:
                    Filter(and.Left, depth + 1);
                    Filter(and.Right, depth + 1);
                    break;
                case OrFilter or:
                    Filter(or.Left, depth + 1);
                    Filter(or.Right, depth + 1);
                    break;
                case NotFilter not:
                    Filter(not.Operand, depth + 1);
                    break;
                case ComparisonFilter c:
                    var usage = c.Operator is ComparisonOperator.Equal or ComparisonOperator.NotEqual ? FieldUsages.Equality : FieldUsages.Range;
                    Add(c.Field, Kind(c.Value) == LiteralKinds.Null ? FieldUsages.Exists : usage, c.Value);
                    break;
                case BetweenFilter b:
                    Add(b.Field, FieldUsages.Range, b.Low);
                    Add(b.Field, FieldUsages.None, b.High);
                    break;
                case InFilter i:
                    Add(i.Field, FieldUsages.Equality, null);
                    foreach (var value in i.Values)
                    {
                        Add(i.Field, FieldUsages.None, value);
                    }

                    break;
                case StartsWithFilter s:
                    Add(s.Field, FieldUsages.StartsWith, s.Prefix);
                    break;
                case SearchFilter s:
                    Add(s.Field, FieldUsages.Search, s.Words);
                    break;
                case ExistsFilter e:
                    Add(e.Field, FieldUsages.Exists, null);
                    break;
            }
        }

        public void Add(FieldRef field, FieldUsages usage, QueryValue? value)
        {
            if (field.IsDocumentId)
            {
                return;
            }

            var kinds = value == null ? LiteralKinds.None : Kind(value);
            for (var i = 0; i < Result.Count; i++)
            {
                if (string.Equals(Result[i].Path, field.Path, StringComparison.OrdinalIgnoreCase))
                {
                    Result[i] = Result[i] with { Usages = Result[i].Usages | usage, Literals = Result[i].Literals | kinds };
                    return;
                }
            }

            Result.Add(new QueryFieldRequirement(field.Path, usage, kinds, field.Position));
        }

        private LiteralKinds Kind(QueryValue value)
        {
            if (value is ParameterValue p)
            {
                if (!parameters.Values.TryGetValue(p.Name, out var element))
                {
                    return LiteralKinds.None; // reported by binding, at its position
                }

                return element.ValueKind == JsonValueKind.Array ? ArrayKinds(element) : ElementKind(element);
            }

            return value switch
            {
                StringValue => LiteralKinds.String,
                NumberValue => LiteralKinds.Number,
                BoolValue => LiteralKinds.Bool,
                NullValue => LiteralKinds.Null,
                _ => LiteralKinds.None,
            };
        }

        private static LiteralKinds ArrayKinds(JsonElement array)
        {
            var kinds = LiteralKinds.None;
            foreach (var item in array.EnumerateArray())
            {
                kinds |= ElementKind(item);
            }

            return kinds;
        }

        private static LiteralKinds ElementKind(JsonElement element) => element.ValueKind switch
        {
            JsonValueKind.String => LiteralKinds.String,
            JsonValueKind.Number => LiteralKinds.Number,
            JsonValueKind.True or JsonValueKind.False => LiteralKinds.Bool,
            JsonValueKind.Null => LiteralKinds.Null,
            _ => LiteralKinds.None,
        };
    }
}
