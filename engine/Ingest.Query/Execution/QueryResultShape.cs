namespace Ingest.Query.Execution;

/// <summary>What the elements of a query's results array are.</summary>
public enum QueryResultShape
{
    /// <summary>Whole documents: <c>{"id", "collection", "etag", "lastModified", "document"}</c> as <c>GET /docs</c> pages them.</summary>
    Documents,

    /// <summary>Objects with one property per select item (its Name), values read from the document.</summary>
    Projection,

    /// <summary>Grouped or aggregated rows (Aggregation/).</summary>
    Aggregates,

    /// <summary><c>{"facet", "value"|"range", "count"}</c> rows (Aggregation/).</summary>
    Facets,
}
