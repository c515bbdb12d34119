using Ingest.Indexing.Definitions;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// How a collection query's aggregation is answered by combining a map-reduce index's groups
/// (<see cref="MapReduceReaggregation.TryPlan"/> makes it, <see cref="ReaggregatedQuery"/> runs it).
/// </summary>
/// <param name="Query">The collection query as written.</param>
/// <param name="Definition">The map-reduce index's definition.</param>
/// <param name="Aggregation">The query's aggregation bound to the index's fields (its keys, aggregates, facets, order and columns).</param>
/// <param name="KeySources">Per query key (or per facet when <see cref="Aggregation"/> is facets): the index group key it reads.</param>
/// <param name="AggregateSources">Per query aggregate: the index aggregate it reads (-1: count(), the group's documents).</param>
/// <param name="TimeKey">The index's time key on the range's field, -1 when the query has no time range.</param>
/// <param name="Low">The range's first tick (inclusive), null when unbounded below.</param>
/// <param name="High">The range's last tick (inclusive), null when unbounded above.</param>
/// <param name="Rest">The where clause without the time range, as written (the edges' query-time part filters with it).</param>
/// <param name="Columns">The index's columns (keys, then aggregates), which <paramref name="RowCondition"/> tests.</param>
/// <param name="RowCondition">The where clause without the time range, bound to the index's key columns.</param>
/// <param name="TimeField">The field the range tests (the edges' range is put on it).</param>
/// <param name="Reason">What explain says.</param>
internal sealed record ReaggregationPlan(
    ParsedQuery Query,
    IndexDefinition Definition,
    AggregationQuery Aggregation,
    int[] KeySources,
    int[] AggregateSources,
    int TimeKey,
    long? Low,
    long? High,
    QueryFilter? Rest,
    List<GroupColumn> Columns,
    GroupCondition? RowCondition,
    FieldRef? TimeField,
    string Reason)
{
    /// <summary>The index's time buckets on the range's field (meaningful when <see cref="TimeKey"/> >= 0).</summary>
    public TimeInterval IndexBuckets { get; init; }
}
