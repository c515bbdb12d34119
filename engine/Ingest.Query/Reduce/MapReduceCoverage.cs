using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Indexing.Runtime;
using Ingest.Query.Aggregation;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// Whether a map-reduce index answers a collection query's <c>group by</c> exactly as query-time aggregation would,
/// and if so the query rewritten as <c>from index</c> on its group rows (columns named and ordered as query-time
/// aggregation names and orders them). Only when the answers are identical:
/// <list type="bullet">
/// <item>the index reads one collection, the query's, and groups by exactly the query's keys: keyword and bool fields
/// (both put a document in a group per distinct value) and <c>time()</c> buckets of the same width and origin;
/// number and datetime field keys are not used (the index takes a document's first value, a query every value);</item>
/// <item>every aggregate the query selects or orders by is one of the index's (count(), count(F), sum, avg, min, max of
/// the same field), and the query does not order by avg, min or max (query-time puts their nulls last either way);</item>
/// <item>the <c>where</c> tests only keyword or bool keys whose path has no <c>[]</c> (a multi-valued key filtered at
/// query time keeps the document's other values' groups), with =, !=, in, exists, and, or, not;</item>
/// <item>rows whose key is null (documents without a value) are left out: query-time aggregation puts those in no group.</item>
/// </list>
/// </summary>
internal static class MapReduceCoverage
{
    /// <summary>Whether <paramref name="query"/> is a collection group by (without facets), the only kind a map-reduce index can answer: a check that costs nothing.</summary>
    public static bool MayCover(ParsedQuery query)
    {
        if (query.Source.Kind != QuerySourceKind.Collection || query.GroupBy.Count == 0)
        {
            return false;
        }

        foreach (var item in query.Select)
        {
            if (item is FacetSelect)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The first map-reduce index (by name) that covers <paramref name="query"/>, or null; then <paramref name="skipped"/>
    /// says why a map-reduce index of the collection did not, preferring one with the query's group keys (null when there
    /// is none or the query is not a group by).
    /// </summary>
    /// <param name="groupCount">An index's number of groups, to prefer, among indexes whose groups combine into the query's, the one with the fewest.</param>
    public static CoveredQuery? TryCover(ParsedQuery query, IReadOnlyList<IndexStatus> statuses, QueryParameters parameters, Func<string, long> groupCount, out string? skipped)
    {
        skipped = null;
        var skippedCloseness = -1;
        var exact = MayCover(query);
        if (!exact && !MapReduceReaggregation.MayReaggregate(query))
        {
            return null;
        }

        var candidates = new List<IndexDefinition>();
        foreach (var status in statuses.OrderBy(s => s.Definition.Name, StringComparer.Ordinal))
        {
            var definition = status.Definition;
            if (definition.Reduce is not null && status.State != IndexState.Errored
                && definition.Collections is [var collection] && string.Equals(collection, query.Source.Name, StringComparison.Ordinal))
            {
                candidates.Add(definition);
            }
        }

        foreach (var definition in exact ? candidates : [])
        {
            var covered = TryCover(query, definition, parameters, out var reason, out var closeness);
            if (covered != null)
            {
                return covered;
            }

            if (closeness > skippedCloseness)
            {
                skipped = $"map-reduce index '{definition.Name}' not used: {reason}";
                skippedCloseness = closeness;
            }
        }

        // No index holds the query's groups as they are: one whose groups combine into them (MapReduceReaggregation),
        // the one with the fewest groups (a range reads about the same share of each), then by name.
        ReaggregationPlan? best = null;
        var bestGroups = long.MaxValue;
        var skippedCombining = (string?)null;
        foreach (var definition in candidates)
        {
            var plan = MapReduceReaggregation.TryPlan(query, definition, parameters, out var reason);
            if (plan is null)
            {
                skippedCombining ??= $"map-reduce index '{definition.Name}' not used: {reason}";
                continue;
            }

            var groups = groupCount(definition.Name);
            if (best is null || groups < bestGroups)
            {
                (best, bestGroups) = (plan, groups);
            }
        }

        if (best is not null)
        {
            var source = new QuerySource(QuerySourceKind.Index, best.Definition.Name, query.Source.Position);
            return new CoveredQuery(new ParsedQuery(source, null, [], [], [], null, null), best.Definition.Name, best.Reason) { Plan = best };
        }

        skipped ??= skippedCombining;
        return null;
    }

    /// <summary>The query bound to a map-reduce index's fields (its map part), or null and why not.</summary>
    internal static AggregationQuery? TryBind(ParsedQuery query, IndexDefinition definition, QueryParameters parameters, out string reason)
    {
        try
        {
            var aggregation = AggregationQuery.TryBind(query, definition, parameters.GetJson);
            reason = aggregation is null ? "the query does not aggregate" : "";
            return aggregation;
        }
        catch (QueryException e)
        {
            reason = $"the query does not bind to its fields ({e.Message})";
            return null;
        }
    }

    private static CoveredQuery? TryCover(ParsedQuery query, IndexDefinition definition, QueryParameters parameters, out string reason, out int closeness)
    {
        // How far the index got: 0 bound, 1 as many keys as the query, 2 the same keys (explain names the closest one).
        closeness = 0;
        var reduce = definition.Reduce!;
        var aggregation = TryBind(query, definition, parameters, out reason);
        if (aggregation is null)
        {
            return null;
        }

        if (aggregation.Keys.Count != reduce.GroupBy.Count)
        {
            reason = $"it groups by {KeyNames(reduce)}, the query by {aggregation.Keys.Count} key(s)";
            return null;
        }

        closeness = 1;
        var keyColumns = new string[aggregation.Keys.Count];
        var used = new bool[reduce.GroupBy.Count];
        for (var k = 0; k < aggregation.Keys.Count; k++)
        {
            var key = aggregation.Keys[k];
            var field = definition.Fields[key.Field];
            if (key.Interval == null && field.Type is not (IndexFieldType.Keyword or IndexFieldType.Bool))
            {
                reason = $"group key '{field.Name}' is a {field.Type.ToString().ToLowerInvariant()} field: the index groups a document by its first value, a query by every value";
                return null;
            }

            var match = -1;
            for (var g = 0; g < reduce.GroupBy.Count && match < 0; g++)
            {
                var candidate = reduce.GroupBy[g];
                if (!used[g] && string.Equals(candidate.Field, field.Name, StringComparison.OrdinalIgnoreCase)
                    && (key.Interval is { } interval ? candidate.Interval != null && SameBuckets(interval, candidate.Interval) : candidate.Interval == null))
                {
                    match = g;
                }
            }

            if (match < 0)
            {
                reason = key.Interval is { } i
                    ? $"it has no time key on '{field.Name}' with the query's interval '{i}' (keys: {KeyNames(reduce)})"
                    : $"it has no group key on '{field.Name}' (keys: {KeyNames(reduce)})";
                return null;
            }

            used[match] = true;
            keyColumns[k] = reduce.GroupBy[match].Name;
        }

        closeness = 2;
        var aggregateColumns = new string[aggregation.Aggregates.Count];
        for (var a = 0; a < aggregation.Aggregates.Count; a++)
        {
            var wanted = aggregation.Aggregates[a];
            var name = AggregateColumn(reduce, definition, wanted);
            if (name is null)
            {
                reason = $"it has no aggregate {wanted.Name}";
                return null;
            }

            aggregateColumns[a] = name;
        }

        var order = new List<OrderByItem>();
        var orderedKeys = new bool[keyColumns.Length];
        foreach (var item in aggregation.Orders)
        {
            if (item.Aggregate >= 0 && aggregation.Aggregates[item.Aggregate].Function is AggregateFunction.Avg or AggregateFunction.Min or AggregateFunction.Max)
            {
                reason = $"the query orders by {aggregation.Aggregates[item.Aggregate].Name}, which may be null (query-time aggregation puts nulls last both ways)";
                return null;
            }

            if (item.Key >= 0)
            {
                orderedKeys[item.Key] = true;
            }

            var column = item.Aggregate >= 0 ? aggregateColumns[item.Aggregate] : keyColumns[item.Key];
            order.Add(new OrderByItem(Column(column, query.Source.Position), null, item.Descending, OrderByType.Default, query.Source.Position));
        }

        // Query-time groups come in ascending key order, the first key most significant, and break ties that way.
        for (var k = 0; k < keyColumns.Length; k++)
        {
            if (!orderedKeys[k])
            {
                order.Add(new OrderByItem(Column(keyColumns[k], query.Source.Position), null, false, OrderByType.Default, query.Source.Position));
            }
        }

        QueryFilter? where = null;
        for (var k = 0; k < keyColumns.Length; k++)
        {
            QueryFilter exists = new ExistsFilter(Column(keyColumns[k], query.Source.Position), query.Source.Position);
            where = where == null ? exists : new AndFilter(where, exists, query.Source.Position);
        }

        if (query.Where != null)
        {
            var filter = RewriteFilter(query.Where, definition, aggregation, keyColumns, out reason);
            if (filter is null)
            {
                return null;
            }

            where = new AndFilter(filter, where!, query.Where.Position);
        }

        var select = new List<SelectItem>(aggregation.Columns.Count);
        for (var c = 0; c < aggregation.Columns.Count; c++)
        {
            var source = aggregation.ColumnSources[c];
            var column = source >= 0 ? keyColumns[source] : aggregateColumns[-1 - source];
            select.Add(new FieldSelect(Column(column, query.Source.Position), aggregation.Columns[c].Name, query.Source.Position));
        }

        var rewritten = new ParsedQuery(
            new QuerySource(QuerySourceKind.Index, definition.Name, query.Source.Position), where, [], select, order, query.Limit, query.Offset);
        reason = $"map-reduce index '{definition.Name}' groups {query.Source.Name} by {KeyNames(reduce)} and keeps {string.Join(", ", aggregation.Aggregates.Select(a => a.Name))}"
            + (query.Where == null ? "" : "; the where clause tests only its keys");
        return new CoveredQuery(rewritten, definition.Name, reason);
    }

    /// <summary>The where clause on the index's columns, or null (and why) when it tests anything but single-valued keyword or bool keys.</summary>
    private static QueryFilter? RewriteFilter(QueryFilter filter, IndexDefinition definition, AggregationQuery aggregation, string[] keyColumns, out string reason)
    {
        reason = "";
        switch (filter)
        {
            case AndFilter and:
                var left = RewriteFilter(and.Left, definition, aggregation, keyColumns, out reason);
                var right = left == null ? null : RewriteFilter(and.Right, definition, aggregation, keyColumns, out reason);
                return right == null ? null : new AndFilter(left!, right, and.Position);
            case OrFilter or:
                var first = RewriteFilter(or.Left, definition, aggregation, keyColumns, out reason);
                var second = first == null ? null : RewriteFilter(or.Right, definition, aggregation, keyColumns, out reason);
                return second == null ? null : new OrFilter(first!, second, or.Position);
            case NotFilter not:
                var operand = RewriteFilter(not.Operand, definition, aggregation, keyColumns, out reason);
                return operand == null ? null : new NotFilter(operand, not.Position);
            case ExistsFilter exists:
                return KeyColumn(exists.Field, definition, aggregation, keyColumns, out reason) is { } e ? new ExistsFilter(e, exists.Position) : null;
            case ComparisonFilter { Operator: ComparisonOperator.Equal or ComparisonOperator.NotEqual } comparison:
                return KeyColumn(comparison.Field, definition, aggregation, keyColumns, out reason) is { } c ? comparison with { Field = c } : null;
            case InFilter @in:
                return KeyColumn(@in.Field, definition, aggregation, keyColumns, out reason) is { } i ? @in with { Field = i } : null;
            default:
                reason = "the where clause is more than =, !=, in and exists on group keys";
                return null;
        }
    }

    private static FieldRef? KeyColumn(FieldRef field, IndexDefinition definition, AggregationQuery aggregation, string[] keyColumns, out string reason)
    {
        for (var k = 0; k < aggregation.Keys.Count; k++)
        {
            var key = aggregation.Keys[k];
            var indexField = definition.Fields[key.Field];
            if (key.Interval == null && !field.IsDocumentId && string.Equals(indexField.Name, field.Path, StringComparison.OrdinalIgnoreCase))
            {
                if (indexField.Path.Contains("[]", StringComparison.Ordinal))
                {
                    reason = $"the where clause tests '{indexField.Name}', which may hold several values (path {indexField.Path}): the query keeps a matching document's other values' groups";
                    return null;
                }

                reason = "";
                return new FieldRef(keyColumns[k], false, field.Position);
            }
        }

        reason = $"the where clause tests '{field.Path}', which is not a keyword or bool group key of the query";
        return null;
    }

    private static string? AggregateColumn(ReduceDefinition reduce, IndexDefinition definition, BoundAggregate wanted)
    {
        var kind = wanted.Function switch
        {
            AggregateFunction.Count => AggregateKind.Count,
            AggregateFunction.Sum => AggregateKind.Sum,
            AggregateFunction.Avg => AggregateKind.Avg,
            AggregateFunction.Min => AggregateKind.Min,
            _ => AggregateKind.Max,
        };
        var fieldName = wanted.Field < 0 ? null : definition.Fields[wanted.Field].Name;
        foreach (var aggregate in reduce.Aggregates)
        {
            if (aggregate.Kind == kind && string.Equals(aggregate.Field, fieldName, StringComparison.OrdinalIgnoreCase))
            {
                return aggregate.Name;
            }
        }

        return null;
    }

    /// <summary>Fixed-width buckets with the same width and origin number instants alike (<c>60m</c> is <c>1h</c>; <c>7d</c> is not <c>1w</c>, whose origin is a Monday).</summary>
    private static bool SameBuckets(TimeInterval query, string indexInterval)
    {
        if (query.Unit is TimeUnit.Month or TimeUnit.Year)
        {
            return false;
        }

        TimeInterval stored;
        try
        {
            stored = TimeInterval.Parse(indexInterval, default);
        }
        catch (QueryException)
        {
            return false;
        }

        return stored.StartOf(0) == query.StartOf(0) && stored.StartOf(1) == query.StartOf(1);
    }

    private static FieldRef Column(string name, SourcePosition position) => new(name, false, position);

    private static string KeyNames(ReduceDefinition reduce) =>
        reduce.GroupBy.Count == 0 ? "nothing" : string.Join(", ", reduce.GroupBy.Select(k => k.Interval == null ? k.Field : $"time({k.Field}, '{k.Interval}')"));
}
