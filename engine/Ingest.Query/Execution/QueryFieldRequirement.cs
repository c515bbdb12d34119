using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// A field a query needs from its index: <paramref name="Path"/> as written (FieldRef.Path, the index field's name),
/// how it is used, the kinds of literal it is compared with, and where it first appears (for errors). The document id
/// is never listed: it needs no index field.
/// </summary>
public sealed record QueryFieldRequirement(string Path, FieldUsages Usages, LiteralKinds Literals, SourcePosition Position)
{
    /// <summary>Whether an index field is needed (a field only projected is read from the document).</summary>
    public bool NeedsIndexField => (Usages & ~FieldUsages.Select) != FieldUsages.None;
}
