using System.Text.Json;

namespace Ingest.Benchmarks.Queries;

/// <summary>The values of one generated order the baselines index (keywords lower-cased, as Ingest's keyword fields fold them).</summary>
internal sealed record QueryOrder(string Status, string Company, double Total, long OrderedAtTicks, string ProductNames)
{
    public static QueryOrder Read(byte[] json)
    {
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        var names = new List<string>();
        foreach (var line in root.GetProperty("Lines").EnumerateArray())
        {
            names.Add(line.GetProperty("ProductName").GetString()!);
        }

        return new QueryOrder(
            root.GetProperty("Status").GetString()!.ToLowerInvariant(),
            root.GetProperty("Company").GetString()!.ToLowerInvariant(),
            root.GetProperty("Total").GetDouble(),
            root.GetProperty("OrderedAt").GetDateTime().ToUniversalTime().Ticks,
            string.Join(" ", names));
    }
}
