using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// The aggregate part of a query, bound to an index: <c>group by</c> fields and <c>time()</c> buckets with
/// <c>count/sum/avg/min/max</c>, or facets. <see cref="Write"/> computes it over a match set from the index's term
/// dictionary and columns (never the documents) and writes one JSON object per row.
/// <code>
/// var aggregation = AggregationQuery.TryBind(parsed, index.Definition, parameters); // null: not an aggregation
/// writer.WriteStartArray();
/// long groups = aggregation.Write(reader, matches, writer, cancellationToken);       // rows: aggregation.Columns
/// writer.WriteEndArray();
/// </code>
/// </summary>
public sealed class AggregationQuery
{
    internal AggregationQuery(
        IReadOnlyList<GroupKey> keys,
        IReadOnlyList<BoundAggregate> aggregates,
        IReadOnlyList<BoundFacet> facets,
        IReadOnlyList<GroupOrder> orders,
        IReadOnlyList<AggregationColumn> columns,
        IReadOnlyList<int> columnSources,
        long limit,
        long offset)
    {
        Keys = keys;
        Aggregates = aggregates;
        Facets = facets;
        Orders = orders;
        Columns = columns;
        ColumnSources = columnSources;
        Limit = limit;
        Offset = offset;
    }

    /// <summary>The properties of every row, in order. A facet query's rows have <c>facet</c>, <c>value</c> or <c>range</c>, and <c>count</c>.</summary>
    public IReadOnlyList<AggregationColumn> Columns { get; }

    /// <summary>Whether the rows are facet counts (<c>select facet(...)</c>) rather than groups.</summary>
    public bool IsFacets => Facets.Count > 0;

    internal IReadOnlyList<GroupKey> Keys { get; }

    internal IReadOnlyList<BoundAggregate> Aggregates { get; }

    internal IReadOnlyList<BoundFacet> Facets { get; }

    internal IReadOnlyList<GroupOrder> Orders { get; }

    /// <summary>Per column: a key index (>= 0) or <see cref="AggregateSource"/> of an aggregate index.</summary>
    internal IReadOnlyList<int> ColumnSources { get; }

    internal long Limit { get; }

    internal long Offset { get; }

    /// <summary>
    /// Binds the aggregate parts of <paramref name="query"/> (its where clause is the caller's); null when the query
    /// has no group by, aggregate or facet. Throws <see cref="QueryException"/> at the offending item.
    /// </summary>
    public static AggregationQuery? TryBind(ParsedQuery query, IndexDefinition index, Func<ParameterValue, JsonElement> parameter)
    {
        ArgumentNullException.ThrowIfNull(index);
        ArgumentNullException.ThrowIfNull(parameter);
        return AggregationBinder.IsAggregation(query) ? new AggregationBinder(index, parameter).Bind(query) : null;
    }

    /// <summary>
    /// Aggregates <paramref name="matches"/> (entry ids of <paramref name="reader"/>'s index, ascending, no repeats)
    /// and writes the rows after <c>offset</c>, at most <c>limit</c>, each as one JSON object; the caller writes what
    /// surrounds them and flushes. Everything is computed before the first row is written, so a
    /// <see cref="QueryException"/> (too many time buckets) leaves the writer untouched. Returns the number of rows
    /// before offset and limit (groups, or facet rows).
    /// </summary>
    public long Write(IndexReader reader, ReadOnlySpan<long> matches, Utf8JsonWriter writer, CancellationToken cancellationToken) =>
        Write(reader, matches, -1, default, writer, cancellationToken);

    /// <summary>
    /// <see cref="Write(IndexReader, ReadOnlySpan{long}, Utf8JsonWriter, CancellationToken)"/> with the column keys of
    /// field <paramref name="columnField"/> already read for every match (one per match, as
    /// <see cref="IndexReader.RangeOfSingleValues(int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, bool, List{long}, List{long}?)"/>
    /// gives them when it walked the column): that column is not read again.
    /// </summary>
    internal long Write(IndexReader reader, ReadOnlySpan<long> matches, int columnField, ReadOnlySpan<long> columnKeys, Utf8JsonWriter writer, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(reader);
        ArgumentNullException.ThrowIfNull(writer);
        if (IsFacets)
        {
            return FacetExecution.Write(this, reader, matches, writer, cancellationToken);
        }

        using var execution = new GroupExecution(this, reader, matches.Length);
        if (columnField >= 0 && columnKeys.Length == matches.Length && ReadsColumnOf(columnField, out var type))
        {
            execution.UseColumnKeys(columnField, type, columnKeys);
        }

        execution.Aggregate(matches, cancellationToken);
        return execution.WriteRows(writer);
    }

    /// <summary>
    /// Whether grouping reads number or datetime <paramref name="field"/>'s column for every match (a <c>time()</c>
    /// key or an aggregate over it), so a filter that walks that column can hand its values over.
    /// </summary>
    internal bool ReadsColumnOf(int field, out IndexFieldType type)
    {
        type = IndexFieldType.DateTime;
        if (IsFacets)
        {
            return false;
        }

        foreach (var key in Keys)
        {
            if (key.Field == field && key.Interval != null)
            {
                return true;
            }
        }

        foreach (var aggregate in Aggregates)
        {
            if (aggregate.Field == field && aggregate.Type is IndexFieldType.Number or IndexFieldType.DateTime)
            {
                type = aggregate.Type;
                return true;
            }
        }

        return false;
    }

    internal static int AggregateSource(int aggregate) => -1 - aggregate;
}
