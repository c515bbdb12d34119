namespace Ingest.Server.Queries;

/// <summary>The <c>format</c> of a <c>/queries</c> answer.</summary>
public enum ResultFormat
{
    /// <summary><c>{"results": [...], "totalResults": ...}</c>, streamed (the default).</summary>
    Json,

    /// <summary>A flat JSON array of rows (time series as <c>{time, series, value}</c>), for Grafana's Infinity data source.</summary>
    Rows,

    /// <summary>The same rows as CSV with a header line.</summary>
    Csv,
}
