namespace Ingest.Query.Syntax;

/// <summary>Bounds that keep any query text, however built, from exhausting the server (stack, memory, time).</summary>
public static class QueryLimits
{
    /// <summary>Longest query text, in UTF-8 bytes (64 KiB).</summary>
    public const int MaxTextBytes = 64 * 1024;

    /// <summary>Deepest nesting of parentheses and <c>not</c> in a <c>where</c> clause.</summary>
    public const int MaxDepth = 64;

    /// <summary>Most values in one <c>in (...)</c> list or one <c>ranges(...)</c>.</summary>
    public const int MaxListValues = 1024;
}
