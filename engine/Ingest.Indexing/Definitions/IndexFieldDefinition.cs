namespace Ingest.Indexing.Definitions;

/// <summary>
/// One indexed field: its name in queries, the JSON path its values come from (grammar in
/// <see cref="Paths.JsonPathCompiler"/>), and its type. <paramref name="ExactCase"/> applies to keyword fields only.
/// </summary>
public sealed record IndexFieldDefinition(string Name, string Path, IndexFieldType Type, bool ExactCase = false);
