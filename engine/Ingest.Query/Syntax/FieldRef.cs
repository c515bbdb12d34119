namespace Ingest.Query.Syntax;

/// <summary>
/// A field named in a query. <paramref name="Path"/> is in the index path grammar (<c>Customer.Name</c>,
/// <c>Lines[].Sku</c>, <c>"Ship to".Zip</c>; see Ingest.Indexing's JsonPathCompiler), ready to compile or to compare
/// with an index field's name. <paramref name="IsDocumentId"/> is true for <c>id()</c> and a bare <c>Id</c>/<c>id</c>
/// (the document's id, not a property; a property called Id is reached as <c>"Id"</c>), and then Path is <c>id()</c>.
/// </summary>
public sealed record FieldRef(string Path, bool IsDocumentId, SourcePosition Position);
