using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// The seam to Aggregation/: a grouped, aggregated or faceted query bound against its index, made by the
/// <c>QueryRunner.BindAggregation</c> hook (implemented in Aggregation/). The runner evaluates the filter and hands the
/// match set over; it applies <c>offset</c>/<c>limit</c> and continuation (a row offset) to the rows.
/// </summary>
public interface IQueryAggregation
{
    /// <summary><see cref="QueryResultShape.Aggregates"/> or <see cref="QueryResultShape.Facets"/>.</summary>
    QueryResultShape Shape { get; }

    IReadOnlyList<QueryColumn> Columns { get; }

    /// <summary>The rows over <paramref name="matches"/> (entry ids, ascending, distinct), in their final order.</summary>
    IAggregationRows Compute(IndexReader reader, ReadOnlySpan<long> matches, CancellationToken ct);
}
