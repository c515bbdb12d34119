namespace Ingest.Indexing.Definitions;

/// <summary>
/// What an index covers: the documents of <paramref name="Collections"/>, and the fields taken from each.
/// Build one with <see cref="IndexDefinitionJson.Parse"/> or check a hand-made one with <see cref="IndexDefinitionValidator.Validate"/>.
/// </summary>
public sealed record IndexDefinition(string Name, IReadOnlyList<string> Collections, IReadOnlyList<IndexFieldDefinition> Fields);
