namespace Ingest.Indexing.Reduce;

/// <summary>
/// The reduce of a map-reduce index: its entries grouped by <see cref="GroupBy"/> (each key's values, combined), and
/// per group the <see cref="Aggregates"/>. Keys and aggregates name fields of the index's own definition. Equal by
/// content, in order, so an unchanged PUT is recognised.
/// </summary>
public sealed record ReduceDefinition(IReadOnlyList<GroupKeyDefinition> GroupBy, IReadOnlyList<AggregateDefinition> Aggregates)
{
    public bool Equals(ReduceDefinition? other) =>
        other is not null && GroupBy.SequenceEqual(other.GroupBy) && Aggregates.SequenceEqual(other.Aggregates);

    public override int GetHashCode()
    {
        var hash = new HashCode();
        foreach (var key in GroupBy)
        {
            hash.Add(key);
        }

        foreach (var aggregate in Aggregates)
        {
            hash.Add(aggregate);
        }

        return hash.ToHashCode();
    }
}
