using System.Globalization;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// One order key of a row as the index orders it, recomputed by the merger from the value the shard returned:
/// keywords folded (the smallest of several), numbers and datetimes as their first value, booleans false before true.
/// A production scatter-gather would have the shard send the key it sorted by (the continuation key already holds it)
/// instead of recomputing it; this is what lets the simulation use the engine unchanged.
/// </summary>
internal readonly record struct SortValue(bool Missing, long Integer, double Number, string? Text)
{
    public static readonly SortValue None = new(true, 0, 0, null);

    /// <summary>The key of <paramref name="value"/> (the JSON at the field's path, null when absent) for a field of that type; the id when <paramref name="type"/> is null.</summary>
    public static SortValue Of(JsonNode? value, IndexFieldType? type)
    {
        switch (type)
        {
            case null:
                return new SortValue(false, 0, 0, value!.GetValue<string>().ToLowerInvariant());
            case IndexFieldType.Keyword:
            {
                string? smallest = null;
                IEnumerable<JsonNode?> items = value is JsonArray array ? array : new[] { value };
                foreach (var item in items)
                {
                    if (item is JsonValue v && v.TryGetValue<string>(out var text) && (smallest == null || string.CompareOrdinal(text.ToLowerInvariant(), smallest) < 0))
                    {
                        smallest = text.ToLowerInvariant();
                    }
                }

                return smallest == null ? None : new SortValue(false, 0, 0, smallest);
            }

            case IndexFieldType.Number:
                return value is JsonValue n && n.TryGetValue<double>(out var number) ? new SortValue(false, 0, number, null) : None;
            case IndexFieldType.DateTime:
                return value is JsonValue d && d.TryGetValue<string>(out var date) ? new SortValue(false, Ticks(date), 0, null) : None;
            case IndexFieldType.Bool:
                return value is JsonValue b && b.TryGetValue<bool>(out var flag) ? new SortValue(false, flag ? 1 : 0, 0, null) : None;
            default:
                throw new InvalidOperationException($"cannot order by a {type} field");
        }
    }

    public static long Ticks(string iso) => DateTime.Parse(iso, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal).Ticks;

    /// <summary>Missing values last in both directions, as the engine orders them.</summary>
    public static int Compare(SortValue a, SortValue b, bool descending)
    {
        if (a.Missing || b.Missing)
        {
            return a.Missing == b.Missing ? 0 : a.Missing ? 1 : -1;
        }

        var order = a.Text != null ? string.CompareOrdinal(a.Text, b.Text) : a.Integer != b.Integer ? a.Integer.CompareTo(b.Integer) : a.Number.CompareTo(b.Number);
        return descending ? -order : order;
    }

    public override string ToString() => Missing ? "(missing)" : Text ?? (Integer != 0 ? Integer.ToString(CultureInfo.InvariantCulture) : Number.ToString("R", CultureInfo.InvariantCulture));
}
