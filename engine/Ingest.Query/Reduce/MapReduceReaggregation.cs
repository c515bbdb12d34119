using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Aggregation;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// Whether a map-reduce index answers a collection query's aggregation by combining its groups, when it cannot answer
/// it row for row (<see cref="MapReduceCoverage"/>): the query groups by fewer of its keys (<c>group by Company</c> on
/// an index grouped by Company and hour), by a coarser multiple of its time buckets (<c>time(OrderedAt, '10m')</c> on
/// 5-minute buckets), counts per value with <c>facet(F)</c>, or aggregates without keys (<c>select count()</c>); and
/// it may restrict the index's time key's field to a range (<c>OrderedAt between $from and $to</c>). Only when the
/// answer is the query-time one:
/// <list type="bullet">
/// <item>each query key is an index key: a keyword or bool key on the same field, or a time key whose buckets are a
/// whole number of the index's, starting on one of its bucket starts (months and years are not fixed multiples);
/// a facet is a keyword or bool key without ranges;</item>
/// <item>every index key the query leaves out holds one value per document (a time key, or a keyword or bool key
/// whose path has no <c>[]</c>), so that adding its groups counts each document once;</item>
/// <item>aggregates combine: count(), count(F), sum(F), min(F), max(F) from the same aggregate; avg(F) from a sum or
/// avg of F (sums over counts); countDistinct does not combine and is never used;</item>
/// <item>the where clause is top-level conjuncts: =, !=, in, exists, and, or, not on single-valued keyword or bool
/// index keys, and between, &lt;, &lt;=, &gt;, &gt;= (or =) on the time key's field.</item>
/// </list>
/// A time range need not fall on bucket boundaries: the buckets wholly inside it are read from the index, and the
/// edges (at most one partial bucket at each end, such as the instant <c>$to</c> itself, which <c>between</c>
/// includes) are aggregated at query time over the same index's map part and merged in. A range inside one bucket is
/// all edge. Nothing is ever approximated: what cannot be answered so is answered at query time.
/// Over 300 lines: every rule, with the reason explain gives when it fails, is here, as MapReduceCoverage keeps its own.
/// </summary>
internal static class MapReduceReaggregation
{
    /// <summary>Whether <paramref name="query"/> is an aggregation over a collection (the only kind this can answer): a check that costs nothing.</summary>
    public static bool MayReaggregate(ParsedQuery query) =>
        query.Source.Kind == QuerySourceKind.Collection && AggregationBinder.IsAggregation(query);

    /// <summary>The plan answering <paramref name="query"/> from <paramref name="definition"/>'s groups, or null and why not.</summary>
    public static ReaggregationPlan? TryPlan(ParsedQuery query, IndexDefinition definition, QueryParameters parameters, out string reason)
    {
        var reduce = definition.Reduce!;
        var aggregation = MapReduceCoverage.TryBind(query, definition, parameters, out reason);
        if (aggregation is null)
        {
            return null;
        }

        var used = new bool[reduce.GroupBy.Count];
        int[] keySources;
        if (aggregation.IsFacets)
        {
            keySources = new int[aggregation.Facets.Count];
            for (var f = 0; f < keySources.Length; f++)
            {
                var facet = aggregation.Facets[f];
                var field = definition.Fields[facet.Field];
                keySources[f] = facet.Ranges == null && field.Type is IndexFieldType.Keyword or IndexFieldType.Bool ? FieldKey(reduce, field.Name) : -1;
                if (keySources[f] < 0)
                {
                    reason = $"facet '{facet.Name}' is not a value facet of one of its keyword or bool keys (keys: {KeyNames(reduce)})";
                    return null;
                }

                used[keySources[f]] = true;
            }
        }
        else
        {
            keySources = new int[aggregation.Keys.Count];
            for (var k = 0; k < keySources.Length; k++)
            {
                var key = aggregation.Keys[k];
                var field = definition.Fields[key.Field];
                keySources[k] = key.Interval is { } interval
                    ? CoarserTimeKey(reduce, field.Name, interval)
                    : field.Type is IndexFieldType.Keyword or IndexFieldType.Bool ? FieldKey(reduce, field.Name) : -1;
                if (keySources[k] < 0 || used[keySources[k]])
                {
                    reason = key.Interval is { } i
                        ? $"it has no time key on '{field.Name}' whose buckets make up the query's '{i}' buckets (keys: {KeyNames(reduce)})"
                        : $"it has no keyword or bool group key on '{field.Name}' (keys: {KeyNames(reduce)})";
                    return null;
                }

                used[keySources[k]] = true;
            }
        }

        for (var g = 0; g < used.Length; g++)
        {
            if (!used[g] && !SingleValued(definition, reduce.GroupBy[g]))
            {
                reason = $"its key '{reduce.GroupBy[g].Name}' may hold several values per document, so adding up its groups would count a document more than once";
                return null;
            }
        }

        var aggregateSources = new int[aggregation.Aggregates.Count];
        for (var a = 0; a < aggregateSources.Length; a++)
        {
            var wanted = aggregation.Aggregates[a];
            var source = wanted.Field < 0 ? -1 : AggregateOf(reduce, definition.Fields[wanted.Field].Name, wanted.Function);
            if (wanted.Field >= 0 && source < 0)
            {
                reason = $"it has no aggregate that {wanted.Name} can be combined from";
                return null;
            }

            aggregateSources[a] = source;
        }

        // The where clause: a time range on a time key's field, and the rest on keys.
        long? low = null;
        long? high = null;
        FieldRef? timeField = null;
        QueryFilter? rest = null;
        QueryFilter? restOnKeys = null;
        var columns = GroupRowBinder.Columns(definition);
        var conjuncts = new List<QueryFilter>();
        if (query.Where != null)
        {
            Conjuncts(query.Where, conjuncts);
        }

        foreach (var conjunct in conjuncts)
        {
            if (TimeBounds(conjunct, definition, reduce, parameters, out var field, out var from, out var to))
            {
                if (timeField != null && !string.Equals(timeField.Path, field!.Path, StringComparison.OrdinalIgnoreCase))
                {
                    reason = "the where clause puts ranges on two time fields";
                    return null;
                }

                timeField = field;
                low = from is { } f && (low is null || f > low) ? f : low;
                high = to is { } t && (high is null || t < high) ? t : high;
                continue;
            }

            if (OnKeys(conjunct, definition, reduce, out reason) is not { } rewritten)
            {
                return null;
            }

            rest = rest == null ? conjunct : new AndFilter(rest, conjunct, conjunct.Position);
            restOnKeys = restOnKeys == null ? rewritten : new AndFilter(restOnKeys, rewritten, conjunct.Position);
        }

        var rowCondition = restOnKeys == null ? null : GroupRowBinder.BindCondition(restOnKeys, columns, definition, parameters);

        var timeKey = -1;
        TimeInterval buckets = default;
        if (timeField != null)
        {
            timeKey = TimeKeyOf(reduce, timeField.Path, keySources, aggregation);
            if (timeKey < 0)
            {
                reason = $"the where clause ranges over '{timeField.Path}', on which it has no time key";
                return null;
            }

            buckets = TimeInterval.Parse(reduce.GroupBy[timeKey].Interval!, default);
        }

        reason = $"map-reduce index '{definition.Name}' groups {query.Source.Name} by {KeyNames(reduce)}: its groups are combined"
            + (timeField == null ? "" : $", the buckets wholly inside the range on {timeField.Path} read from it and the range's partial buckets, if any, aggregated at query time");
        return new ReaggregationPlan(query, definition, aggregation, keySources, aggregateSources, timeKey, low, high, rest, columns, rowCondition, timeField, reason)
        {
            IndexBuckets = buckets,
        };
    }

    private static void Conjuncts(QueryFilter filter, List<QueryFilter> into)
    {
        if (filter is AndFilter and)
        {
            Conjuncts(and.Left, into);
            Conjuncts(and.Right, into);
        }
        else
        {
            into.Add(filter);
        }
    }

    /// <summary>Whether <paramref name="filter"/> bounds a datetime field that a time key buckets; its bounds as inclusive ticks.</summary>
    private static bool TimeBounds(QueryFilter filter, IndexDefinition definition, ReduceDefinition reduce, QueryParameters parameters, out FieldRef? field, out long? from, out long? to)
    {
        (field, from, to) = (null, null, null);
        var (reference, low, high) = filter switch
        {
            BetweenFilter b => (b.Field, b.Low, b.High),
            ComparisonFilter { Operator: ComparisonOperator.Greater or ComparisonOperator.GreaterOrEqual } c => (c.Field, c.Value, null),
            ComparisonFilter { Operator: ComparisonOperator.Less or ComparisonOperator.LessOrEqual } c => (c.Field, null, c.Value),
            ComparisonFilter { Operator: ComparisonOperator.Equal } c => (c.Field, c.Value, c.Value),
            _ => ((FieldRef?)null, (QueryValue?)null, (QueryValue?)null),
        };
        if (reference is null || reference.IsDocumentId)
        {
            return false;
        }

        var indexField = definition.Fields.FirstOrDefault(f => string.Equals(f.Name, reference.Path, StringComparison.OrdinalIgnoreCase));
        if (indexField is not { Type: IndexFieldType.DateTime } || indexField.Path.Contains("[]", StringComparison.Ordinal)
            || !reduce.GroupBy.Any(k => k.Interval != null && string.Equals(k.Field, indexField.Name, StringComparison.OrdinalIgnoreCase)))
        {
            return false;
        }

        var bound = new BoundField(reference, -1, indexField);
        if (low is not null && parameters.Resolve(low) is NullValue || high is not null && parameters.Resolve(high) is NullValue)
        {
            return false;
        }

        from = low is null ? null : ValueBinder.ReadDateTimeTicks(parameters.Resolve(low), bound);
        to = high is null ? null : ValueBinder.ReadDateTimeTicks(parameters.Resolve(high), bound);
        if (filter is ComparisonFilter { Operator: ComparisonOperator.Greater })
        {
            from = from == long.MaxValue ? from : from + 1;
        }

        if (filter is ComparisonFilter { Operator: ComparisonOperator.Less })
        {
            to = to - 1;
        }

        field = new FieldRef(indexField.Name, false, reference.Position);
        return true;
    }

    /// <summary><paramref name="filter"/> on the index's key columns, or null (and why) when it tests anything but single-valued keyword or bool keys.</summary>
    private static QueryFilter? OnKeys(QueryFilter filter, IndexDefinition definition, ReduceDefinition reduce, out string reason)
    {
        reason = "";
        switch (filter)
        {
            case AndFilter and:
                var left = OnKeys(and.Left, definition, reduce, out reason);
                var right = left == null ? null : OnKeys(and.Right, definition, reduce, out reason);
                return right == null ? null : new AndFilter(left!, right, and.Position);
            case OrFilter or:
                var first = OnKeys(or.Left, definition, reduce, out reason);
                var second = first == null ? null : OnKeys(or.Right, definition, reduce, out reason);
                return second == null ? null : new OrFilter(first!, second, or.Position);
            case NotFilter not:
                var operand = OnKeys(not.Operand, definition, reduce, out reason);
                return operand == null ? null : new NotFilter(operand, not.Position);
            case ExistsFilter exists:
                return KeyColumn(exists.Field, definition, reduce, out reason) is { } e ? new ExistsFilter(e, exists.Position) : null;
            case ComparisonFilter { Operator: ComparisonOperator.Equal or ComparisonOperator.NotEqual } comparison:
                return KeyColumn(comparison.Field, definition, reduce, out reason) is { } c ? comparison with { Field = c } : null;
            case InFilter @in:
                return KeyColumn(@in.Field, definition, reduce, out reason) is { } i ? @in with { Field = i } : null;
            default:
                reason = "the where clause is more than a time range and =, !=, in and exists on its keys";
                return null;
        }
    }

    private static FieldRef? KeyColumn(FieldRef field, IndexDefinition definition, ReduceDefinition reduce, out string reason)
    {
        foreach (var key in reduce.GroupBy)
        {
            if (key.Interval != null || field.IsDocumentId || !string.Equals(key.Field, field.Path, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            var indexField = definition.Fields.First(f => string.Equals(f.Name, key.Field, StringComparison.OrdinalIgnoreCase));
            if (indexField.Type is not (IndexFieldType.Keyword or IndexFieldType.Bool) || indexField.Path.Contains("[]", StringComparison.Ordinal))
            {
                break;
            }

            reason = "";
            return new FieldRef(key.Name, false, field.Position);
        }

        reason = $"the where clause tests '{field.Path}', which is not one of its single-valued keyword or bool keys nor a time range";
        return null;
    }

    private static int FieldKey(ReduceDefinition reduce, string field)
    {
        for (var g = 0; g < reduce.GroupBy.Count; g++)
        {
            if (reduce.GroupBy[g].Interval == null && string.Equals(reduce.GroupBy[g].Field, field, StringComparison.OrdinalIgnoreCase))
            {
                return g;
            }
        }

        return -1;
    }

    /// <summary>The index time key on <paramref name="field"/> whose buckets tile <paramref name="query"/>'s: the widest such, for the fewest groups.</summary>
    private static int CoarserTimeKey(ReduceDefinition reduce, string field, TimeInterval query)
    {
        var best = -1;
        var bestWidth = 0L;
        for (var g = 0; g < reduce.GroupBy.Count; g++)
        {
            var key = reduce.GroupBy[g];
            if (key.Interval == null || !string.Equals(key.Field, field, StringComparison.OrdinalIgnoreCase) || !query.IsFixedWidth)
            {
                continue;
            }

            var stored = TimeInterval.Parse(key.Interval, default);
            var width = stored.BucketWidthTicks;
            if (query.BucketWidthTicks % width == 0 && (query.FixedBucketStart(0) - stored.FixedBucketStart(0)) % width == 0 && width > bestWidth)
            {
                (best, bestWidth) = (g, width);
            }
        }

        return best;
    }

    /// <summary>The time key that bounds the range: the one a query time key reads, else the finest on the field (the smallest edges).</summary>
    private static int TimeKeyOf(ReduceDefinition reduce, string field, int[] keySources, AggregationQuery aggregation)
    {
        if (!aggregation.IsFacets)
        {
            for (var k = 0; k < keySources.Length; k++)
            {
                var key = reduce.GroupBy[keySources[k]];
                if (key.Interval != null && string.Equals(key.Field, field, StringComparison.OrdinalIgnoreCase))
                {
                    return keySources[k];
                }
            }
        }

        var best = -1;
        var bestWidth = long.MaxValue;
        for (var g = 0; g < reduce.GroupBy.Count; g++)
        {
            var key = reduce.GroupBy[g];
            if (key.Interval != null && string.Equals(key.Field, field, StringComparison.OrdinalIgnoreCase)
                && TimeInterval.Parse(key.Interval, default).BucketWidthTicks is var width && width < bestWidth)
            {
                (best, bestWidth) = (g, width);
            }
        }

        return best;
    }

    private static bool SingleValued(IndexDefinition definition, GroupKeyDefinition key)
    {
        if (key.Interval != null)
        {
            return true; // a time key buckets the field's first value
        }

        var field = definition.Fields.First(f => string.Equals(f.Name, key.Field, StringComparison.OrdinalIgnoreCase));
        return field.Type is IndexFieldType.Keyword or IndexFieldType.Bool && !field.Path.Contains("[]", StringComparison.Ordinal);
    }

    /// <summary>The index aggregate a query aggregate combines from: the same function, or for avg and count(F) a sum or avg (their count of values is kept).</summary>
    private static int AggregateOf(ReduceDefinition reduce, string field, AggregateFunction function)
    {
        var fallback = -1;
        for (var a = 0; a < reduce.Aggregates.Count; a++)
        {
            var aggregate = reduce.Aggregates[a];
            if (!string.Equals(aggregate.Field, field, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            var exact = (function, aggregate.Kind) switch
            {
                (AggregateFunction.Count, AggregateKind.Count) => true,
                (AggregateFunction.Sum, AggregateKind.Sum) => true,
                (AggregateFunction.Avg, AggregateKind.Avg) => true,
                (AggregateFunction.Min, AggregateKind.Min) => true,
                (AggregateFunction.Max, AggregateKind.Max) => true,
                _ => false,
            };
            if (exact)
            {
                return a;
            }

            var combines = function switch
            {
                AggregateFunction.Count => aggregate.Kind is AggregateKind.Sum or AggregateKind.Avg or AggregateKind.Min or AggregateKind.Max,
                AggregateFunction.Sum or AggregateFunction.Avg => aggregate.Kind is AggregateKind.Sum or AggregateKind.Avg,
                _ => false,
            };
            if (combines && fallback < 0)
            {
                fallback = a;
            }
        }

        return fallback;
    }

    private static string KeyNames(ReduceDefinition reduce) =>
        reduce.GroupBy.Count == 0 ? "nothing" : string.Join(", ", reduce.GroupBy.Select(k => k.Interval == null ? k.Field : $"time({k.Field}, '{k.Interval}')"));
}
