using Ingest.Indexing.Reduce;

namespace Ingest.Indexing.Definitions;

/// <summary>
/// What an index covers: the documents of <paramref name="Collections"/>, and the fields taken from each.
/// Build one with <see cref="IndexDefinitionJson.Parse"/> or check a hand-made one with <see cref="IndexDefinitionValidator.Validate"/>.
/// Two definitions are equal when their name, collections and fields are, in order (ordinal): a PUT of an equal
/// definition changes nothing, any other difference rebuilds the index.
/// With a <see cref="Reduce"/> it is a map-reduce index: the entries are also grouped and aggregated, incrementally.
/// </summary>
public sealed record IndexDefinition(string Name, IReadOnlyList<string> Collections, IReadOnlyList<IndexFieldDefinition> Fields)
{
    /// <summary>The reduce of a map-reduce index; null for a map index.</summary>
    public ReduceDefinition? Reduce { get; init; }

    public bool Equals(IndexDefinition? other) =>
        other is not null
        && string.Equals(Name, other.Name, StringComparison.Ordinal)
        && Collections.SequenceEqual(other.Collections, StringComparer.Ordinal)
        && Fields.SequenceEqual(other.Fields)
        && Equals(Reduce, other.Reduce);

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

        hash.Add(Reduce);
        return hash.ToHashCode();
    }
}
