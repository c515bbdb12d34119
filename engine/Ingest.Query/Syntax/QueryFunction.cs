namespace Ingest.Query.Syntax;

/// <summary>The functions of the language (names matched case-insensitively).</summary>
internal enum QueryFunction
{
    None,
    StartsWith,
    Exists,
    Search,
    Id,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Facet,
    Ranges,
    Time,
}
