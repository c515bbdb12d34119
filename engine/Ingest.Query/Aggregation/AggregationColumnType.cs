namespace Ingest.Query.Aggregation;

/// <summary>The JSON shape of an aggregation result column's values (null is possible in every column).</summary>
public enum AggregationColumnType
{
    /// <summary>A JSON string (keyword group keys are the folded term: lower-case unless the field is exactCase).</summary>
    String,

    /// <summary>A JSON number.</summary>
    Number,

    /// <summary>An ISO 8601 UTC string ending in <c>Z</c>.</summary>
    DateTime,

    /// <summary>JSON true or false.</summary>
    Bool,

    /// <summary>Varies by row (a facet's <c>value</c>, whose type is the faceted field's).</summary>
    Any,
}
