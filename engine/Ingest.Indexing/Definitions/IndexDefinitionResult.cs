namespace Ingest.Indexing.Definitions;

/// <summary>Either a valid definition or every problem found in it (never both).</summary>
public sealed record IndexDefinitionResult(IndexDefinition? Definition, IReadOnlyList<IndexDefinitionError> Errors)
{
    public bool IsValid => Definition != null;

    internal static IndexDefinitionResult Invalid(IReadOnlyList<IndexDefinitionError> errors) => new(null, errors);
}
