using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// An aggregate resolved against the index: <see cref="Field"/> is -1 for <c>count()</c>. <see cref="IsWritten"/> is
/// false for one that only <c>order by</c> names.
/// </summary>
internal sealed record BoundAggregate(AggregateFunction Function, int Field, IndexFieldType Type, string Name, bool IsWritten)
{
    /// <summary>Whether the aggregate reads the field's column (the first value), rather than counting documents.</summary>
    public bool ReadsColumn => Field >= 0 && Function != AggregateFunction.Count;

    /// <summary>The result is a datetime (min/max of a datetime field).</summary>
    public bool IsDateTime => Type == IndexFieldType.DateTime && Function is AggregateFunction.Min or AggregateFunction.Max;
}
