namespace Ingest.Indexing.Reduce;

/// <summary>What a map-reduce aggregate keeps per group.</summary>
public enum AggregateKind
{
    /// <summary>Documents in the group, or with a field: documents of the group that have a value for it.</summary>
    Count,

    /// <summary>The sum of a number field's values.</summary>
    Sum,

    /// <summary>The smallest value of a number or datetime field.</summary>
    Min,

    /// <summary>The largest value of a number or datetime field.</summary>
    Max,

    /// <summary>The mean of a number field's values.</summary>
    Avg,

    /// <summary>How many distinct values a keyword, bool, number or datetime field has in the group.</summary>
    CountDistinct,
}
