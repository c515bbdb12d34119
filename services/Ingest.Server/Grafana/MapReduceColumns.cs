using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;

namespace Ingest.Server.Grafana;

/// <summary>
/// The columns a <c>from index</c> query on a map-reduce index reads, with the types the editors and ad hoc filters
/// need: each group key (a time bucket key is a datetime, another key has its field's type), then each aggregate
/// (<c>min</c>/<c>max</c> of their field's type, the others numbers).
/// </summary>
internal static class MapReduceColumns
{
    public static IReadOnlyList<CollectionField> Keys(IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        var reduce = definition.Reduce ?? throw new ArgumentException($"Index '{definition.Name}' is not a map-reduce index.", nameof(definition));
        var keys = new List<CollectionField>(reduce.GroupBy.Count);
        foreach (var key in reduce.GroupBy)
        {
            keys.Add(new CollectionField(key.Name, key.Interval is null ? FieldType(definition, key.Field) : IndexFieldType.DateTime));
        }

        return keys;
    }

    public static IReadOnlyList<CollectionField> Aggregates(IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        var reduce = definition.Reduce ?? throw new ArgumentException($"Index '{definition.Name}' is not a map-reduce index.", nameof(definition));
        var aggregates = new List<CollectionField>(reduce.Aggregates.Count);
        foreach (var aggregate in reduce.Aggregates)
        {
            var type = aggregate.Kind is AggregateKind.Min or AggregateKind.Max && aggregate.Field is { } field ? FieldType(definition, field) : IndexFieldType.Number;
            aggregates.Add(new CollectionField(aggregate.Name, type));
        }

        return aggregates;
    }

    /// <summary>The first time bucket key, the column a panel's time range filters; null when the index has none.</summary>
    public static string? TimeKey(IndexDefinition definition) =>
        definition.Reduce?.GroupBy.FirstOrDefault(static k => k.Interval is not null)?.Name;

    /// <summary>The type of column <paramref name="name"/> (case-insensitive, as the query binds columns), or null.</summary>
    public static IndexFieldType? TypeOf(IndexDefinition definition, string name) =>
        Keys(definition).Concat(Aggregates(definition)).FirstOrDefault(c => string.Equals(c.Name, name, StringComparison.OrdinalIgnoreCase))?.Type;

    private static IndexFieldType FieldType(IndexDefinition definition, string field) =>
        definition.Fields.FirstOrDefault(f => string.Equals(f.Name, field, StringComparison.Ordinal))?.Type ?? IndexFieldType.Keyword;
}
