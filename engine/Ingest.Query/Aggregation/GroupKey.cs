using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// One key of <c>group by</c>, resolved: a field's values (every distinct value of the document, walked from the term
/// dictionary) or, when <see cref="Interval"/> is set, the <c>time()</c> bucket of a datetime field's column value.
/// </summary>
internal sealed record GroupKey(int Field, IndexFieldType Type, TimeInterval? Interval, SourcePosition Position)
{
    /// <summary>The column this key writes to (the field's path, <c>time</c>, or the name it was selected as).</summary>
    public string ColumnName { get; set; } = "";
}
