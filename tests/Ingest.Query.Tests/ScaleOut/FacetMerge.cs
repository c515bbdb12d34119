using System.Text.Json.Nodes;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// Merges facets: a value's counts add across shards (a document is on one shard, so counted once), value rows are
/// ordered again by descending count then value, range rows keep the ranges' order. Exact because every shard sends
/// every value it has; a facet cut to its top N per shard could not be merged exactly (a value just below one
/// shard's cut is missing from the sum).
/// </summary>
internal sealed class FacetMerge
{
    private readonly IReadOnlyList<FacetSelect> _facets;
    private readonly Dictionary<string, List<(string Key, JsonObject Row)>> _rows = new(StringComparer.Ordinal);

    public FacetMerge(ParsedQuery query)
    {
        _facets = query.Select.OfType<FacetSelect>().ToList();
        foreach (var facet in _facets)
        {
            _rows[facet.Name] = [];
        }
    }

    public void Add(JsonObject row)
    {
        var rows = _rows[row["facet"]!.GetValue<string>()];
        var key = (row["value"] ?? row["range"])!.ToJsonString();
        var index = rows.FindIndex(r => r.Key == key);
        if (index < 0)
        {
            rows.Add((key, (JsonObject)row.DeepClone()));
        }
        else
        {
            rows[index].Row["count"] = (long)MergedValue.Number(rows[index].Row["count"]!) + (long)MergedValue.Number(row["count"]!);
        }
    }

    public MergedPage Result()
    {
        var result = new List<JsonObject>();
        foreach (var facet in _facets)
        {
            var rows = _rows[facet.Name].Select(r => r.Row).ToList();
            if (facet.Ranges.Count == 0)
            {
                var type = ScaleOutIndex.Field(facet.Field.Path).Type;
                rows.Sort((a, b) =>
                {
                    var order = MergedValue.Number(b["count"]!).CompareTo(MergedValue.Number(a["count"]!));
                    return order != 0 ? order : MergedValue.Compare(a["value"], b["value"], type);
                });
            }

            result.AddRange(rows);
        }

        return new MergedPage(result, result.Count, null);
    }
}
