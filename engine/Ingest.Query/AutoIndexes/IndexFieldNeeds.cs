using Ingest.Indexing.Definitions;
using Ingest.Query.Execution;

namespace Ingest.Query.AutoIndexes;

/// <summary>What a query asks of its index's fields (<see cref="QueryFieldUsage"/>) in the terms an index choice needs.</summary>
public static class IndexFieldNeeds
{
    private const int AllTypes = 5;

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

            // Every type, or none (uses no one field can serve: binding names them), leaves the choice open.
            var usable = requirement.UsableTypes;
            IReadOnlyList<IndexFieldType> types = usable.Count is 0 or AllTypes ? [] : usable;
            needs.Add(new IndexFieldNeed(requirement.Path, types, requirement.Usage, requirement.LiteralType, requirement.Position));
        }

        return needs;
    }
}
