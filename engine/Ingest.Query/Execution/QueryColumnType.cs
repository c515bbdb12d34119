namespace Ingest.Query.Execution;

/// <summary>The JSON a result column holds, for table output (CLI, Grafana).</summary>
public enum QueryColumnType
{
    String,
    Number,

    /// <summary>An ISO 8601 string.</summary>
    DateTime,
    Bool,

    /// <summary>Any JSON value (an object, an array, or a value of no known type).</summary>
    Json,
}
