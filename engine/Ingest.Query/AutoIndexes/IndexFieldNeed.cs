using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// A field a query needs from the index that answers it: <paramref name="Path"/> as written (an index field's name,
/// in the index path grammar). <paramref name="UsableTypes"/> are the field types its use allows (<c>search()</c> only
/// text, <c>sum()</c> only number; empty when any type will do) and <paramref name="Usage"/> names that use for error
/// messages. <paramref name="LiteralType"/> is the type of a literal it is compared with, if any: the last hint when an
/// automatic index must guess the field's type. <paramref name="Position"/> is where the query first names it.
/// </summary>
public sealed record IndexFieldNeed(
    string Path,
    IReadOnlyList<IndexFieldType> UsableTypes,
    string? Usage,
    IndexFieldType? LiteralType,
    SourcePosition Position);
