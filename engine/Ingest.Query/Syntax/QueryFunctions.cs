namespace Ingest.Query.Syntax;

internal static class QueryFunctions
{
    /// <summary>For the "unknown function" error, in the order a reader meets them.</summary>
    public const string Known = "startsWith, exists, search, id, count, sum, avg, min, max, facet, ranges, time";

    public static QueryFunction Classify(string name) => name.ToUpperInvariant() switch
    {
        "STARTSWITH" => QueryFunction.StartsWith,
        "EXISTS" => QueryFunction.Exists,
        "SEARCH" => QueryFunction.Search,
        "ID" => QueryFunction.Id,
        "COUNT" => QueryFunction.Count,
        "SUM" => QueryFunction.Sum,
        "AVG" => QueryFunction.Avg,
        "MIN" => QueryFunction.Min,
        "MAX" => QueryFunction.Max,
        "FACET" => QueryFunction.Facet,
        "RANGES" => QueryFunction.Ranges,
        "TIME" => QueryFunction.Time,
        _ => QueryFunction.None,
    };

    /// <summary>The canonical (formatted) spelling.</summary>
    public static string Name(QueryFunction function) => function switch
    {
        QueryFunction.StartsWith => "startsWith",
        QueryFunction.Exists => "exists",
        QueryFunction.Search => "search",
        QueryFunction.Id => "id",
        QueryFunction.Count => "count",
        QueryFunction.Sum => "sum",
        QueryFunction.Avg => "avg",
        QueryFunction.Min => "min",
        QueryFunction.Max => "max",
        QueryFunction.Facet => "facet",
        QueryFunction.Ranges => "ranges",
        QueryFunction.Time => "time",
        _ => throw new ArgumentOutOfRangeException(nameof(function), function, null),
    };
}
