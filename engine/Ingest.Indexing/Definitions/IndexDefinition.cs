namespace Ingest.Indexing.Definitions;

/// <summary>
/// What an index covers: the documents of <paramref name="Collections"/>, and the fields taken from each.
/// Build one with <see cref="IndexDefinitionJson.Parse"/> or check a hand-made one with <see cref="IndexDefinitionValidator.Validate"/>.
/// Two definitions are equal when their name, collections and fields are, in order (ordinal): a PUT of an equal
/// definition changes nothing, any other difference rebuilds the index.
/// </summary>
public sealed record IndexDefinition(string Name, IReadOnlyList<string> Collections, IReadOnlyList<IndexFieldDefinition> Fields)
{
    public bool Equals(IndexDefinition? other) =>
        other is not null
        && string.Equals(Name, other.Name, StringComparison.Ordinal)
        && Collections.SequenceEqual(other.Collections, StringComparer.Ordinal)
        && Fields.SequenceEqual(other.Fields);

    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(Name, StringComparer.Ordinal);
        foreach (var collection in Collections)
        {
            hash.Add(collection, StringComparer.Ordinal);
        }

        foreach (var field in Fields)
        {
            hash.Add(field);
        }

        return hash.ToHashCode();
    }
}
