using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Binding;

/// <summary>
/// A query's field resolved against the answering index: its ordinal in the definition (the field number of the index's
/// terms, nulls and columns) and its definition; or the document id (<see cref="IsDocumentId"/>, Ordinal -1).
/// </summary>
public sealed record BoundField(FieldRef Reference, int Ordinal, IndexFieldDefinition? Definition)
{
    public bool IsDocumentId => Definition is null;

    /// <summary>The field's name as the index spells it (<c>id()</c> for the document id).</summary>
    public string Name => Definition?.Name ?? "id()";

    /// <summary>The field's type; the document id compares like a case-insensitive keyword.</summary>
    public IndexFieldType Type => Definition?.Type ?? IndexFieldType.Keyword;
}
