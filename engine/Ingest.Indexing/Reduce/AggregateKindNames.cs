namespace Ingest.Indexing.Reduce;

/// <summary>The wire names of <see cref="AggregateKind"/>, read case-insensitively, written as the query language spells them.</summary>
internal static class AggregateKindNames
{
    public const string Expected = "count, sum, min, max, avg, countDistinct";

    public static string ToWire(AggregateKind kind) => kind switch
    {
        AggregateKind.Count => "count",
        AggregateKind.Sum => "sum",
        AggregateKind.Min => "min",
        AggregateKind.Max => "max",
        AggregateKind.Avg => "avg",
        AggregateKind.CountDistinct => "countDistinct",
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
    };

    public static bool TryParse(string? text, out AggregateKind kind)
    {
        foreach (var candidate in Enum.GetValues<AggregateKind>())
        {
            if (string.Equals(text, ToWire(candidate), StringComparison.OrdinalIgnoreCase))
            {
                kind = candidate;
                return true;
            }
        }

        kind = default;
        return false;
    }
}
