namespace Ingest.Query.Execution;

/// <summary>One bound <c>order by</c> key; <paramref name="Field"/> is the field ordinal (-1 for the id).</summary>
internal sealed record SortKeySpec(SortKeyKind Kind, int Field, bool Descending, string Name)
{
    /// <summary>
    /// The field's path visits no array (<c>Total</c>, not <c>Lines[].Price</c>): an entry holds at most one term of it,
    /// so in a term walk the term an entry is met under is its sort key, with nothing to check.
    /// </summary>
    public bool SingleValued { get; init; }
}
