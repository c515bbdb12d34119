using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Reduce;

/// <summary>A map-reduce definition resolved to field ordinals, once per index build: what maintenance and reading need per key and aggregate.</summary>
internal sealed class ReducePlan
{
    private ReducePlan(IndexDefinition definition, ReduceDefinition reduce)
    {
        var fields = definition.Fields;
        FieldCount = fields.Count;
        Definition = reduce;
        IsColumn = [.. fields.Select(f => f.Type is IndexFieldType.Number or IndexFieldType.DateTime)];
        FieldTypes = [.. fields.Select(f => f.Type)];
        var keys = reduce.GroupBy;
        KeyFields = new int[keys.Count];
        KeySources = new GroupKeySource[keys.Count];
        KeyBuckets = new TimeBucket[keys.Count];
        for (var k = 0; k < keys.Count; k++)
        {
            KeyFields[k] = Ordinal(fields, keys[k].Field);
            if (keys[k].Interval != null && TimeBucket.TryParse(keys[k].Interval, out var bucket))
            {
                KeySources[k] = GroupKeySource.Bucket;
                KeyBuckets[k] = bucket;
            }
            else
            {
                KeySources[k] = IsColumn[KeyFields[k]] ? GroupKeySource.First : GroupKeySource.Terms;
            }
        }

        KeyValueLimit = keys.Count == 0 ? 0 : (ReduceLayout.GroupKeyLimit / keys.Count) - 6;
        var aggregates = reduce.Aggregates;
        AggregateKinds = [.. aggregates.Select(a => a.Kind)];
        AggregateFields = [.. aggregates.Select(a => a.Field == null ? -1 : Ordinal(fields, a.Field))];
        AggregateValueFields = new int[aggregates.Count];
        var valueFields = new List<int>();
        for (var a = 0; a < aggregates.Count; a++)
        {
            AggregateValueFields[a] = -1;
            if (AggregateKinds[a] is AggregateKind.Min or AggregateKind.Max or AggregateKind.CountDistinct)
            {
                var index = valueFields.IndexOf(AggregateFields[a]);
                if (index < 0)
                {
                    index = valueFields.Count;
                    valueFields.Add(AggregateFields[a]);
                }

                AggregateValueFields[a] = index;
            }
        }

        ValueFields = [.. valueFields];
    }

    public ReduceDefinition Definition { get; }

    public int FieldCount { get; }

    public bool[] IsColumn { get; }

    public IndexFieldType[] FieldTypes { get; }

    public int[] KeyFields { get; }

    public GroupKeySource[] KeySources { get; }

    public TimeBucket[] KeyBuckets { get; }

    /// <summary>Bytes of a keyword value kept in a group key (the group key as a whole stays under <see cref="ReduceLayout.GroupKeyLimit"/>).</summary>
    public int KeyValueLimit { get; }

    public AggregateKind[] AggregateKinds { get; }

    /// <summary>The field each aggregate reads; -1 for a count of documents.</summary>
    public int[] AggregateFields { get; }

    /// <summary>For min, max and countDistinct: the index into <see cref="ValueFields"/> whose value keys they read; -1 otherwise.</summary>
    public int[] AggregateValueFields { get; }

    /// <summary>The fields whose values "reduce/values" keeps per group.</summary>
    public int[] ValueFields { get; }

    public int KeyCount => KeyFields.Length;

    public int AggregateCount => AggregateKinds.Length;

    /// <summary>The plan of a valid map-reduce definition; null for a map index.</summary>
    public static ReducePlan? For(IndexDefinition definition) =>
        definition.Reduce == null ? null : new ReducePlan(definition, definition.Reduce);

    private static int Ordinal(IReadOnlyList<IndexFieldDefinition> fields, string name)
    {
        for (var i = 0; i < fields.Count; i++)
        {
            if (string.Equals(fields[i].Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return i;
            }
        }

        throw new ArgumentException($"The reduce names field '{name}', which the index does not have; validate the definition first.", nameof(fields));
    }
}
