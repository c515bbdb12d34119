using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Paths;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// Guesses the type of fields no query use decides, from the values the paths reach in a sample of the collection's
/// documents, walked as the index walks them (property steps by exact name, <c>[]</c> over array elements): a number is
/// a number, a string that reads as an ISO 8601 date a datetime, any other string a keyword, true/false a bool. The most
/// frequent kind wins; a path with no value in the sample gets no guess.
/// </summary>
internal static class FieldTypeSampler
{
    // The column of the counts that counts any value, whatever its kind.
    private const int Present = 4;

    // Ties go to the earlier kind: numbers and dates are the likelier intent behind a path holding both.
    private static readonly IndexFieldType[] KindOrder = [IndexFieldType.Number, IndexFieldType.DateTime, IndexFieldType.Keyword, IndexFieldType.Bool];

    /// <summary>The guessed type of each of <paramref name="paths"/> that has a string, number or bool value in the sample.</summary>
    public static Dictionary<string, IndexFieldType> Infer(CollectionSample sample, IReadOnlyList<string> paths)
    {
        var guesses = new Dictionary<string, IndexFieldType>(StringComparer.Ordinal);
        var counts = CountKinds(sample, paths);
        for (var p = 0; p < paths.Count; p++)
        {
            var best = -1;
            for (var k = 0; k < KindOrder.Length; k++)
            {
                if (counts[p, k] > 0 && (best < 0 || counts[p, k] > counts[p, best]))
                {
                    best = k;
                }
            }

            if (best >= 0)
            {
                guesses[paths[p]] = KindOrder[best];
            }
        }

        return guesses;
    }

    /// <summary>The paths no sampled document has a value at (not even null, an object or an array).</summary>
    public static List<string> Absent(CollectionSample sample, IReadOnlyList<string> paths)
    {
        var counts = CountKinds(sample, paths);
        var absent = new List<string>();
        for (var p = 0; p < paths.Count; p++)
        {
            if (counts[p, Present] == 0)
            {
                absent.Add(paths[p]);
            }
        }

        return absent;
    }

    private static int[,] CountKinds(CollectionSample sample, IReadOnlyList<string> paths)
    {
        var counts = new int[paths.Count, Present + 1];
        var compiled = new CompiledJsonPath?[paths.Count];
        for (var p = 0; p < paths.Count; p++)
        {
            compiled[p] = JsonPathCompiler.TryCompile(paths[p], out var path, out _) ? path : null;
        }

        foreach (var json in sample.Documents)
        {
            for (var p = 0; p < paths.Count; p++)
            {
                if (compiled[p] is { } path)
                {
                    Count(json.RootElement, path, 0, counts, p);
                }
            }
        }

        return counts;
    }

    private static void Count(JsonElement value, CompiledJsonPath path, int step, int[,] counts, int p)
    {
        if (step == path.Steps.Length)
        {
            counts[p, Present]++;
            var kind = KindOf(value);
            if (kind >= 0)
            {
                counts[p, kind]++;
            }

            return;
        }

        var next = path.Steps[step];
        if (next.Kind == JsonPathStepKind.Elements)
        {
            if (value.ValueKind == JsonValueKind.Array)
            {
                foreach (var element in value.EnumerateArray())
                {
                    Count(element, path, step + 1, counts, p);
                }
            }

            return;
        }

        if (value.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in value.EnumerateObject())
            {
                if (property.NameEquals(next.Utf8Name.AsSpan()))
                {
                    Count(property.Value, path, step + 1, counts, p);
                }
            }
        }
    }

    private static int KindOf(JsonElement value) => value.ValueKind switch
    {
        JsonValueKind.Number => 0,
        JsonValueKind.String => value.TryGetDateTimeOffset(out _) || value.TryGetDateTime(out _) ? 1 : 2,
        JsonValueKind.True or JsonValueKind.False => 3,
        _ => -1,
    };
}
