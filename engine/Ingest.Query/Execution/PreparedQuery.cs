using Ingest.Indexing.Definitions;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// A query bound against its source and ready to run (any number of times, against any reader of that index):
/// fields resolved, values encoded, the filter planned, the output shape known. Made by <see cref="QueryExecutor.Prepare"/>.
/// </summary>
public sealed class PreparedQuery
{
    internal PreparedQuery(ParsedQuery query, IndexDefinition? definition, string sourceName)
    {
        Query = query;
        Definition = definition;
        SourceName = sourceName;
    }

    public ParsedQuery Query { get; }

    /// <summary>The answering index's definition; null for a collection scan.</summary>
    public IndexDefinition? Definition { get; }

    /// <summary>The index name, or <c>collection/Orders</c> for a collection scan (the response's indexName).</summary>
    public string SourceName { get; }

    public bool IsCollectionScan => Definition is null;

    public QueryResultShape Shape { get; internal set; }

    /// <summary>The result objects' properties, for table output.</summary>
    public IReadOnlyList<QueryColumn> Columns { get; internal set; } = [];

    /// <summary>Rows skipped before the first page (0 when resuming from a continuation).</summary>
    public int Offset { get; internal set; }

    /// <summary>Rows per page; null for all.</summary>
    public int? Limit { get; internal set; }

    internal string? Collection { get; init; }

    /// <summary>Why no document can match (an unknown collection, a condition on fields no document has): the answer is empty.</summary>
    internal string? NothingReason { get; init; }

    internal bool MatchesNothing => NothingReason is not null;

    internal FilterNode? Filter { get; set; }

    /// <summary>A collection scan's condition on the document id.</summary>
    internal IdPredicate? IdFilter { get; set; }

    internal SortKeySpec[] Order { get; set; } = [];

    internal ProjectionItem[] Projection { get; set; } = [];

    internal AggregationQuery? Aggregation { get; set; }

    /// <summary>For a collection scan's <c>select count()</c>: the column name.</summary>
    internal string? CountOnlyName { get; set; }

    internal ulong DefinitionFingerprint { get; set; }

    internal ContinuationToken? Resume { get; set; }

    /// <summary><c>from index 'X'</c> on a map-reduce index: its group rows (Reduce/).</summary>
    internal Reduce.GroupRowQuery? GroupRows { get; set; }

    /// <summary>A collection aggregation answered by combining a map-reduce index's groups (Reduce/).</summary>
    internal Reduce.ReaggregatedQuery? Reaggregation { get; set; }
}
