using System.Text;
using System.Text.Json.Nodes;

namespace Ingest.Cli.Commands;

/// <summary>
/// An index definition from <c>ingest indexes define</c>'s flags, as the JSON <c>PUT /indexes/{name}</c> takes:
/// <c>--field Name:type[:path]</c>, <c>--group-by Field</c> or <c>--group-by Name=Field[:interval]</c>,
/// <c>--aggregate Name=count</c> or <c>--aggregate Name=function(Field)</c>. The server validates what the flags mean
/// (types, names, intervals); this only checks their shape, so a typo is a usage error naming the flag.
/// </summary>
internal static class IndexDefinitionFlags
{
    /// <summary>The body, or null with <paramref name="error"/> saying which flag is malformed.</summary>
    public static byte[]? ToBody(IReadOnlyList<string> collections, IReadOnlyList<string> fields, IReadOnlyList<string> groupBy, IReadOnlyList<string> aggregates, out string? error)
    {
        error = null;
        var fieldArray = new JsonArray();
        foreach (var text in fields)
        {
            var parts = text.Split(':', 3);
            if (parts.Length < 2 || parts[0].Length == 0 || parts[1].Length == 0)
            {
                error = $"--field '{text}': expected Name:type or Name:type:path (types: keyword, text, number, datetime, bool), e.g. Total:number";
                return null;
            }

            fieldArray.Add(new JsonObject { ["name"] = parts[0], ["path"] = parts.Length == 3 && parts[2].Length > 0 ? parts[2] : parts[0], ["type"] = parts[1] });
        }

        var keys = new JsonArray();
        foreach (var text in groupBy)
        {
            var (name, rest) = SplitName(text);
            var colon = rest.IndexOf(':', StringComparison.Ordinal);
            var field = colon < 0 ? rest : rest[..colon];
            if (field.Length == 0 || (colon >= 0 && colon == rest.Length - 1) || name?.Length == 0)
            {
                error = $"--group-by '{text}': expected Field, Name=Field or Name=Field:interval, e.g. Status or Hour=OrderedAt:1h";
                return null;
            }

            var key = new JsonObject();
            if (name is not null)
            {
                key["name"] = name;
            }

            key["field"] = field;
            if (colon >= 0)
            {
                key["interval"] = rest[(colon + 1)..];
            }

            keys.Add(key);
        }

        var aggregateArray = new JsonArray();
        foreach (var text in aggregates)
        {
            var (name, rest) = SplitName(text);
            var open = rest.IndexOf('(', StringComparison.Ordinal);
            var function = open < 0 ? rest : rest[..open];
            var field = open < 0 ? null : rest.EndsWith(')') ? rest[(open + 1)..^1].Trim() : string.Empty;
            if (string.IsNullOrEmpty(name) || function.Length == 0 || field?.Length == 0)
            {
                error = $"--aggregate '{text}': expected Name=function or Name=function(Field), e.g. Orders=count or Revenue=sum(Total)";
                return null;
            }

            var aggregate = new JsonObject { ["name"] = name, ["function"] = function };
            if (field is not null)
            {
                aggregate["field"] = field;
            }

            aggregateArray.Add(aggregate);
        }

        var body = new JsonObject
        {
            ["collections"] = new JsonArray([.. collections.Select(static c => (JsonNode?)JsonValue.Create(c))]),
            ["fields"] = fieldArray,
        };
        if (keys.Count > 0 || aggregateArray.Count > 0)
        {
            body["reduce"] = new JsonObject { ["groupBy"] = keys, ["aggregates"] = aggregateArray };
        }

        return Encoding.UTF8.GetBytes(body.ToJsonString());
    }

    private static (string? Name, string Value) SplitName(string text)
    {
        var equals = text.IndexOf('=', StringComparison.Ordinal);
        return equals < 0 ? (null, text.Trim()) : (text[..equals].Trim(), text[(equals + 1)..].Trim());
    }
}
