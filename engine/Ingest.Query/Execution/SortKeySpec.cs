namespace Ingest.Query.Execution;

/// <summary>One bound <c>order by</c> key; <paramref name="Field"/> is the field ordinal (-1 for the id).</summary>
internal sealed record SortKeySpec(SortKeyKind Kind, int Field, bool Descending, string Name);
