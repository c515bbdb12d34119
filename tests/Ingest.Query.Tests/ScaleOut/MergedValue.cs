using System.Globalization;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>Comparisons of the values aggregated rows hold (group keys, aggregates, facet values) by the type of their field.</summary>
internal static class MergedValue
{
    public static double Number(JsonNode node) => double.Parse(node.ToJsonString(), CultureInfo.InvariantCulture);

    /// <summary>Nulls last in both directions (as the engine orders groups); keywords ordinal (they are folded already), numbers and datetimes by value, false before true.</summary>
    public static int Compare(JsonNode? a, JsonNode? b, IndexFieldType type, bool descending = false)
    {
        if (a == null || b == null)
        {
            return (a == null) == (b == null) ? 0 : a == null ? 1 : -1;
        }

        var order = type switch
        {
            IndexFieldType.Keyword => string.CompareOrdinal(a.GetValue<string>(), b.GetValue<string>()),
            IndexFieldType.DateTime => SortValue.Ticks(a.GetValue<string>()).CompareTo(SortValue.Ticks(b.GetValue<string>())),
            IndexFieldType.Bool => a.GetValue<bool>().CompareTo(b.GetValue<bool>()),
            _ => Number(a).CompareTo(Number(b)),
        };
        return descending ? -order : order;
    }
}
