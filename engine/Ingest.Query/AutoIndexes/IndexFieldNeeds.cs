using Ingest.Indexing.Definitions;
using Ingest.Query.Execution;

namespace Ingest.Query.AutoIndexes;

/// <summary>What a query asks of its index's fields (<see cref="QueryFieldUsage"/>) in the terms an index choice needs.</summary>
public static class IndexFieldNeeds
{
    private static readonly (FieldUsages Usage, string Label, IndexFieldType[] Types)[] TypedUses =
    [
        (FieldUsages.Search, "search()", [IndexFieldType.Text]),
        (FieldUsages.StartsWith, "startsWith()", [IndexFieldType.Keyword]),
        (FieldUsages.Time, "time()", [IndexFieldType.DateTime]),
        (FieldUsages.Sum, "sum() or avg()", [IndexFieldType.Number]),
        (FieldUsages.RangeFacet, "a range facet", [IndexFieldType.Number, IndexFieldType.DateTime]),
    ];

    /// <summary>The fields that need an index field (a field only projected is read from the document); empty: a collection scan.</summary>
    public static IReadOnlyList<IndexFieldNeed> From(IReadOnlyList<QueryFieldRequirement> requirements)
    {
        ArgumentNullException.ThrowIfNull(requirements);
        var needs = new List<IndexFieldNeed>(requirements.Count);
        foreach (var requirement in requirements)
        {
            if (!requirement.NeedsIndexField)
            {
                continue;
            }

            IReadOnlyList<IndexFieldType> types = [];
            string? label = null;
            foreach (var (usage, useLabel, useTypes) in TypedUses)
            {
                if ((requirement.Usages & usage) == 0)
                {
                    continue;
                }

                // Two typed uses of one field keep the types both allow; none left means the query cannot be answered
                // by any one field, and the first use's types are asked for (binding then names the other use).
                var both = types.Count == 0 ? useTypes : [.. types.Intersect(useTypes)];
                if (label is null || both.Length > 0)
                {
                    types = both.Length > 0 ? both : types;
                    label = label is null ? useLabel : $"{label} and {useLabel}";
                }
            }

            needs.Add(new IndexFieldNeed(requirement.Path, types, label, LiteralType(requirement.Literals), requirement.Position));
        }

        return needs;
    }

    private static IndexFieldType? LiteralType(LiteralKinds kinds) =>
        (kinds & LiteralKinds.Number) != 0 ? IndexFieldType.Number
        : (kinds & LiteralKinds.String) != 0 ? IndexFieldType.Keyword
        : (kinds & LiteralKinds.Bool) != 0 ? IndexFieldType.Bool
        : null;
}
