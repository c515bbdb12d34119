using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// A field a query needs from its index: <paramref name="Path"/> as written (FieldRef.Path, the index field's name),
/// how it is used, the kinds of literal it is compared with, and where it first appears (for errors). The document id
/// is never listed: it needs no index field.
/// </summary>
public sealed record QueryFieldRequirement(string Path, FieldUsages Usages, LiteralKinds Literals, SourcePosition Position)
{
    private static readonly IndexFieldType[] AnyType = [IndexFieldType.Keyword, IndexFieldType.Text, IndexFieldType.Number, IndexFieldType.DateTime, IndexFieldType.Bool];
    private static readonly IndexFieldType[] ValueTypes = [IndexFieldType.Keyword, IndexFieldType.Number, IndexFieldType.DateTime, IndexFieldType.Bool];

    /// <summary>Whether an index field is needed (a field only projected is read from the document).</summary>
    public bool NeedsIndexField => (Usages & ~FieldUsages.Select) != FieldUsages.None;

    /// <summary>
    /// The field types every use accepts: search -> text, startsWith -> keyword, time() -> datetime, sum/avg -> number,
    /// min/max and range facets -> number or datetime, comparisons, order, group and facet -> any but text; all five
    /// when any type works; empty when no type fits every use (search and startsWith of one field: binding reports it).
    /// </summary>
    public IReadOnlyList<IndexFieldType> UsableTypes
    {
        get
        {
            var types = new List<IndexFieldType>(AnyType);
            Restrict(types, FieldUsages.Search, [IndexFieldType.Text]);
            Restrict(types, FieldUsages.StartsWith, [IndexFieldType.Keyword]);
            Restrict(types, FieldUsages.Time, [IndexFieldType.DateTime]);
            Restrict(types, FieldUsages.Sum, [IndexFieldType.Number]);
            Restrict(types, FieldUsages.MinMax | FieldUsages.RangeFacet, [IndexFieldType.Number, IndexFieldType.DateTime]);
            Restrict(types, FieldUsages.Equality | FieldUsages.Range | FieldUsages.Order | FieldUsages.Group | FieldUsages.Facet, ValueTypes);
            return types;
        }
    }

    /// <summary>The most specific use, for messages: <c>search()</c>, <c>startsWith()</c>, <c>time()</c>, <c>sum()/avg()</c>, ...</summary>
    public string Usage => Usages switch
    {
        _ when Usages.HasFlag(FieldUsages.Search) => "search()",
        _ when Usages.HasFlag(FieldUsages.StartsWith) => "startsWith()",
        _ when Usages.HasFlag(FieldUsages.Time) => "time()",
        _ when Usages.HasFlag(FieldUsages.Sum) => "sum()/avg()",
        _ when Usages.HasFlag(FieldUsages.MinMax) => "min()/max()",
        _ when Usages.HasFlag(FieldUsages.RangeFacet) => "facet(..., ranges(...))",
        _ when Usages.HasFlag(FieldUsages.Range) => "a range comparison",
        _ when Usages.HasFlag(FieldUsages.Equality) => "a comparison",
        _ when Usages.HasFlag(FieldUsages.Order) => "order by",
        _ when Usages.HasFlag(FieldUsages.Group) => "group by",
        _ when Usages.HasFlag(FieldUsages.Facet) => "facet()",
        _ when Usages.HasFlag(FieldUsages.Exists) => "exists()",
        _ when Usages.HasFlag(FieldUsages.Count) => "count()",
        _ => "select",
    };

    /// <summary>The type the literals suggest when they are all of one kind: strings -> keyword, numbers -> number, true/false -> bool.</summary>
    public IndexFieldType? LiteralType => (Literals & ~LiteralKinds.Null) switch
    {
        LiteralKinds.String => IndexFieldType.Keyword,
        LiteralKinds.Number => IndexFieldType.Number,
        LiteralKinds.Bool => IndexFieldType.Bool,
        _ => null,
    };

    private void Restrict(List<IndexFieldType> types, FieldUsages uses, IndexFieldType[] allowed)
    {
        if ((Usages & uses) != FieldUsages.None)
        {
            types.RemoveAll(t => Array.IndexOf(allowed, t) < 0);
        }
    }
}
