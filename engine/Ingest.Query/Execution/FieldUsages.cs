namespace Ingest.Query.Execution;

/// <summary>How a query uses a field, for choosing or creating an index (<see cref="QueryFieldUsage"/>).</summary>
[Flags]
public enum FieldUsages
{
    None = 0,

    /// <summary><c>=</c>, <c>!=</c>, <c>in</c>.</summary>
    Equality = 1,

    /// <summary><c>&lt;</c>, <c>&lt;=</c>, <c>&gt;</c>, <c>&gt;=</c>, <c>between</c>.</summary>
    Range = 2,

    /// <summary><c>startsWith</c>: needs a keyword field.</summary>
    StartsWith = 4,

    /// <summary><c>search</c>: needs a text field.</summary>
    Search = 8,

    /// <summary><c>exists</c>, <c>= null</c>, <c>!= null</c>.</summary>
    Exists = 16,

    Order = 32,

    /// <summary>A projected field (read from the document; an index field is not required).</summary>
    Select = 64,

    /// <summary><c>sum</c> or <c>avg</c>: needs a number field.</summary>
    Sum = 128,

    /// <summary><c>min</c> or <c>max</c>: needs a number or datetime field.</summary>
    MinMax = 256,

    /// <summary><c>group by F</c>.</summary>
    Group = 512,

    /// <summary><c>time(F, ...)</c>: needs a datetime field.</summary>
    Time = 1024,

    Facet = 2048,

    /// <summary><c>facet(F, ranges(...))</c>: needs a number or datetime field.</summary>
    RangeFacet = 4096,

    /// <summary><c>count(F)</c>: any type.</summary>
    Count = 8192,
}
