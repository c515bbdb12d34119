using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// Keeps mistyped queries from shaping automatic indexes. Asked only when no index covers a query and one would be
/// made or widened:
/// <list type="bullet">
/// <item>a collection with no documents gets no index: the query answers empty, with a warning that names the
/// collection (and the nearest known one);</item>
/// <item>a field that no sampled document of the collection has neither makes nor widens an index. When the query can
/// only match nothing without it (its condition needs a value there, as <c>Custmer = 'x'</c> does) it answers empty
/// with a warning naming the field and the nearest one the documents have; otherwise (it would sort, group or
/// negate by a field no document has) it is refused with a 400 at the field.</item>
/// </list>
/// </summary>
internal static class AutoIndexHygiene
{
    private const int SuggestionDepth = 3;

    /// <summary>Null when an index may be made; else why the query matches nothing.</summary>
    /// <exception cref="QueryException">A field no sampled document has is used where an empty answer would be wrong.</exception>
    public static string? Inspect(
        DocumentStore store, ParsedQuery query, IReadOnlyList<IndexFieldNeed> needs, IReadOnlyList<IndexStatus> statuses, int sampleDocuments)
    {
        var collection = query.Source.Name;
        var fresh = new List<string>();
        foreach (var need in needs)
        {
            if (!IndexedSomewhere(statuses, collection, need.Path) && !fresh.Contains(need.Path, StringComparer.OrdinalIgnoreCase))
            {
                fresh.Add(need.Path);
            }
        }

        using var sample = CollectionSample.Read(store, collection, fresh.Count == 0 ? 0 : sampleDocuments);
        if (sample.Count == 0)
        {
            return UnknownCollection(store, collection);
        }

        if (fresh.Count == 0 || sampleDocuments == 0 || sample.Documents.Count == 0)
        {
            return null;
        }

        var absent = FieldTypeSampler.Absent(sample, fresh);
        if (absent.Count == 0)
        {
            return null;
        }

        var unknown = new HashSet<string>(absent, StringComparer.OrdinalIgnoreCase);
        var known = KnownPaths(sample);
        var first = FirstUseOutsideWhere(query, unknown);
        if (first is null && query.Where is { } where && Fold(where, unknown) == Outcome.Nothing)
        {
            var names = new List<string>(absent.Count);
            foreach (var path in absent)
            {
                names.Add(UnknownField(path, collection, known, sample.Documents.Count));
            }

            return string.Join("; ", names) + ". No index was made for it, and the query matches nothing.";
        }

        var field = first ?? FirstUse(query.Where, unknown)!;
        throw new QueryException(
            field.Position,
            UnknownField(field.Path, collection, known, sample.Documents.Count) + "; no automatic index is made or widened for a field no document has (define a static index to index it ahead of its documents)");
    }

    /// <summary>Resolves every value of a condition, so a missing or malformed parameter is reported as it would be had the query run.</summary>
    /// <exception cref="QueryException">A parameter is missing or holds an array or object.</exception>
    public static void ResolveValues(QueryFilter? filter, QueryParameters parameters)
    {
        switch (filter)
        {
            case AndFilter and:
                ResolveValues(and.Left, parameters);
                ResolveValues(and.Right, parameters);
                break;
            case OrFilter or:
                ResolveValues(or.Left, parameters);
                ResolveValues(or.Right, parameters);
                break;
            case NotFilter not:
                ResolveValues(not.Operand, parameters);
                break;
            case ComparisonFilter c:
                parameters.Resolve(c.Value);
                break;
            case BetweenFilter b:
                parameters.Resolve(b.Low);
                parameters.Resolve(b.High);
                break;
            case InFilter i:
                parameters.ResolveList(i.Values);
                break;
            case StartsWithFilter s:
                parameters.Resolve(s.Prefix);
                break;
            case SearchFilter s:
                parameters.Resolve(s.Words);
                break;
        }
    }

    /// <summary>For a collection scan (a query that names no field): a warning when the collection has no documents.</summary>
    public static string? UnknownCollectionScan(DocumentStore store, string collection)
    {
        using var counted = CollectionSample.Read(store, collection, documents: 0);
        return counted.Count > 0 ? null : UnknownCollection(store, collection);
    }

    private static string UnknownCollection(DocumentStore store, string collection)
    {
        var names = new List<string>();
        using (var reader = store.BeginRead())
        {
            foreach (var stats in reader.GetStats().Collections)
            {
                if (stats.Count > 0)
                {
                    names.Add(stats.Name);
                }
            }
        }

        var nearest = Nearest(collection, names);
        return $"unknown collection '{collection}': it has no documents{(nearest is null ? string.Empty : $"; did you mean '{nearest}'?")}. No index was made, and the query matches nothing.";
    }

    private static string UnknownField(string path, string collection, List<string> known, int sampled)
    {
        var nearest = Nearest(path, known);
        return $"unknown field '{path}' in {collection} (none of {sampled} sampled documents has it){(nearest is null ? string.Empty : $"; did you mean '{nearest}'?")}";
    }

    private static bool IndexedSomewhere(IReadOnlyList<IndexStatus> statuses, string collection, string path)
    {
        foreach (var status in statuses)
        {
            var definition = status.Definition;
            if (status.State == IndexState.Errored || definition.Collections.Count != 1
                || !string.Equals(definition.Collections[0], collection, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            foreach (var field in definition.Fields)
            {
                if (string.Equals(field.Name, path, StringComparison.OrdinalIgnoreCase))
                {
                    return true;
                }
            }
        }

        return false;
    }

    private enum Outcome
    {
        /// <summary>Matches no document while the unknown fields have no value anywhere.</summary>
        Nothing,

        /// <summary>May match documents.</summary>
        Maybe,
    }

    /// <summary>
    /// What a condition matches when the <paramref name="unknown"/> fields have no value in any document: a comparison,
    /// range, <c>in</c>, prefix, search or exists on one matches nothing; <c>!=</c> and <c>not</c> match what is left, so
    /// they may match.
    /// </summary>
    private static Outcome Fold(QueryFilter filter, HashSet<string> unknown) => filter switch
    {
        AndFilter and => Fold(and.Left, unknown) == Outcome.Nothing || Fold(and.Right, unknown) == Outcome.Nothing ? Outcome.Nothing : Outcome.Maybe,
        OrFilter or => Fold(or.Left, unknown) == Outcome.Nothing && Fold(or.Right, unknown) == Outcome.Nothing ? Outcome.Nothing : Outcome.Maybe,
        NotFilter => Outcome.Maybe,
        ComparisonFilter c => c.Operator != ComparisonOperator.NotEqual && IsUnknown(c.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        BetweenFilter b => IsUnknown(b.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        InFilter i => IsUnknown(i.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        StartsWithFilter s => IsUnknown(s.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        SearchFilter s => IsUnknown(s.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        ExistsFilter e => IsUnknown(e.Field, unknown) ? Outcome.Nothing : Outcome.Maybe,
        _ => Outcome.Maybe,
    };

    private static bool IsUnknown(FieldRef? field, HashSet<string> unknown) => field is { IsDocumentId: false } && unknown.Contains(field.Path);

    /// <summary>The first unknown field the query groups, aggregates, facets or sorts by: no empty answer stands in for those.</summary>
    private static FieldRef? FirstUseOutsideWhere(ParsedQuery query, HashSet<string> unknown)
    {
        foreach (var group in query.GroupBy)
        {
            var field = group switch { FieldGroupBy f => f.Field, TimeGroupBy t => t.Field, _ => null };
            if (IsUnknown(field, unknown))
            {
                return field;
            }
        }

        foreach (var item in query.Select)
        {
            var field = item switch
            {
                FieldSelect f when query.GroupBy.Count > 0 => f.Field,
                AggregateSelect a => a.Field,
                FacetSelect f => f.Field,
                _ => null,
            };
            if (IsUnknown(field, unknown))
            {
                return field;
            }
        }

        foreach (var order in query.OrderBy)
        {
            var field = order.Field ?? order.Aggregate?.Field;
            if (IsUnknown(field, unknown))
            {
                return field;
            }
        }

        return null;
    }

    private static FieldRef? FirstUse(QueryFilter? filter, HashSet<string> unknown)
    {
        var field = filter switch
        {
            AndFilter and => FirstUse(and.Left, unknown) ?? FirstUse(and.Right, unknown),
            OrFilter or => FirstUse(or.Left, unknown) ?? FirstUse(or.Right, unknown),
            NotFilter not => FirstUse(not.Operand, unknown),
            ComparisonFilter c => c.Field,
            BetweenFilter b => b.Field,
            InFilter i => i.Field,
            StartsWithFilter s => s.Field,
            SearchFilter s => s.Field,
            ExistsFilter e => e.Field,
            _ => null,
        };
        return IsUnknown(field, unknown) ? field : null;
    }

    /// <summary>The property paths the sampled documents have (objects walked a few levels deep), for suggestions.</summary>
    private static List<string> KnownPaths(CollectionSample sample)
    {
        var paths = new HashSet<string>(StringComparer.Ordinal);
        foreach (var json in sample.Documents)
        {
            Walk(json.RootElement, null, 0, paths);
        }

        return [.. paths];
    }

    private static void Walk(JsonElement element, string? prefix, int depth, HashSet<string> paths)
    {
        if (element.ValueKind != JsonValueKind.Object || depth >= SuggestionDepth)
        {
            return;
        }

        foreach (var property in element.EnumerateObject())
        {
            var path = prefix is null ? property.Name : prefix + "." + property.Name;
            if (paths.Add(path) || depth + 1 < SuggestionDepth)
            {
                Walk(property.Value, path, depth + 1, paths);
            }
        }
    }

    /// <summary>The candidate closest to <paramref name="name"/> by edit distance (case-insensitive), if it is close enough to be a typo.</summary>
    private static string? Nearest(string name, IEnumerable<string> candidates)
    {
        string? best = null;
        var bestDistance = int.MaxValue;
        var allowed = Math.Max(2, name.Length / 3);
        foreach (var candidate in candidates)
        {
            var distance = EditDistance(name, candidate);
            if (distance <= allowed && distance < bestDistance)
            {
                best = candidate;
                bestDistance = distance;
            }
        }

        return best;
    }

    /// <summary>Optimal string alignment distance (Levenshtein with adjacent transpositions), ignoring case.</summary>
    private static int EditDistance(string a, string b)
    {
        var rows = new int[3][];
        for (var r = 0; r < 3; r++)
        {
            rows[r] = new int[b.Length + 1];
        }

        for (var j = 0; j <= b.Length; j++)
        {
            rows[0][j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            // Row i is rows[i % 3]; the one two back, (i - 2) % 3, is (i + 1) % 3.
            var (before, previous, current) = (rows[(i + 1) % 3], rows[(i - 1) % 3], rows[i % 3]);
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var same = char.ToUpperInvariant(a[i - 1]) == char.ToUpperInvariant(b[j - 1]);
                current[j] = Math.Min(Math.Min(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + (same ? 0 : 1));
                if (i > 1 && j > 1 && char.ToUpperInvariant(a[i - 1]) == char.ToUpperInvariant(b[j - 2]) && char.ToUpperInvariant(a[i - 2]) == char.ToUpperInvariant(b[j - 1]))
                {
                    current[j] = Math.Min(current[j], before[j - 2] + 1);
                }
            }
        }

        return rows[a.Length % 3][b.Length];
    }
}
