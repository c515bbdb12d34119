using System.Collections.Frozen;
using System.Text;
using Ingest.Documents.Ids;

namespace Ingest.Documents.Expiration;

/// <summary>
/// One immutable set of retention rules, keyed by folded collection name. The store swaps the whole set
/// on the writer thread when the rules change; a batch validated under an older set is re-stamped there.
/// </summary>
internal sealed class ExpirationRules
{
    public static readonly ExpirationRules Empty = new([]);

    private readonly FrozenDictionary<string, Entry> _byFolded;

    public ExpirationRules(IEnumerable<ExpirationRule> rules)
    {
        var map = new Dictionary<string, Entry>(StringComparer.Ordinal);
        foreach (var rule in rules)
        {
            map[IdKey.FoldToString(rule.Collection)] = new Entry(rule, rule.Field is null ? null : Encoding.UTF8.GetBytes(rule.Field));
        }

        _byFolded = map.ToFrozenDictionary(StringComparer.Ordinal);
    }

    public int Count => _byFolded.Count;

    /// <summary>
    /// The expiry of a document: the earlier of its own <paramref name="explicitTicks"/> (0 = none) and its
    /// collection's retention, counted from the field's date or from <paramref name="writtenTicks"/>. 0 = never.
    /// </summary>
    public long Compute(string foldedCollection, ReadOnlySpan<byte> body, long explicitTicks, long writtenTicks, int maxDepth)
    {
        if (!_byFolded.TryGetValue(foldedCollection, out var entry))
        {
            return explicitTicks;
        }

        var from = entry.FieldUtf8 is null ? 0 : ExpiryParser.ReadField(body, entry.FieldUtf8, maxDepth);
        if (from == 0)
        {
            from = writtenTicks;
        }

        var ruled = DateTime.MaxValue.Ticks - from <= entry.Rule.Keep.Ticks ? DateTime.MaxValue.Ticks : from + entry.Rule.Keep.Ticks;
        return explicitTicks == 0 ? ruled : Math.Min(explicitTicks, ruled);
    }

    private sealed record Entry(ExpirationRule Rule, byte[]? FieldUtf8);
}
