using System.Globalization;
using System.Text.Json;

namespace Ingest.Server.Tests.Cluster;

/// <summary>
/// What the cluster must hold: per collection, each document's last version as published or written (null once
/// deleted). Writers record an operation before sending it, in the order the log keeps for that document.
/// </summary>
internal sealed class ClusterModel
{
    private readonly Dictionary<string, Dictionary<string, string?>> _collections = new(StringComparer.Ordinal);
    private long _operations;

    public void Record(string collection, string id, string? body)
    {
        lock (_collections)
        {
            if (!_collections.TryGetValue(collection, out var documents))
            {
                _collections[collection] = documents = new Dictionary<string, string?>(StringComparer.Ordinal);
            }

            documents[id] = body is null ? null : Canonical(body);
            _operations++;
        }
    }

    /// <summary>The live documents of a collection: id -> canonical body.</summary>
    public IReadOnlyDictionary<string, string> Expected(string collection)
    {
        lock (_collections)
        {
            var live = new Dictionary<string, string>(StringComparer.Ordinal);
            if (_collections.TryGetValue(collection, out var documents))
            {
                foreach (var (id, body) in documents)
                {
                    if (body is not null)
                    {
                        live[id] = body;
                    }
                }
            }

            return live;
        }
    }

    /// <summary>Every document ever touched in these collections, id -> last body (null: deleted).</summary>
    public IReadOnlyDictionary<string, string?> ExpectedAll(IEnumerable<string> collections)
    {
        lock (_collections)
        {
            var all = new Dictionary<string, string?>(StringComparer.Ordinal);
            foreach (var collection in collections)
            {
                if (_collections.TryGetValue(collection, out var documents))
                {
                    foreach (var (id, body) in documents)
                    {
                        all[id] = body;
                    }
                }
            }

            return all;
        }
    }

    public string Describe()
    {
        lock (_collections)
        {
            var parts = new List<string> { $"{_operations} operations" };
            foreach (var (name, documents) in _collections)
            {
                parts.Add($"{name} {documents.Count} ids");
            }

            return string.Join(", ", parts);
        }
    }

    public static string Body(int seq, string origin) =>
        string.Create(CultureInfo.InvariantCulture, $$"""{"seq":{{seq}},"origin":"{{origin}}","text":"version {{seq}} from {{origin}}"}""");

    public static string Canonical(string json)
    {
        using var document = JsonDocument.Parse(json);
        return Canonical(document.RootElement);
    }

    public static string Canonical(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json);
        using var document = JsonDocument.ParseValue(ref reader);
        return Canonical(document.RootElement);
    }

    public static string Canonical(JsonElement element) => JsonSerializer.Serialize(element);

    /// <summary>The first way <paramref name="actual"/> differs from <paramref name="expected"/>, or null.</summary>
    public static string? FirstDifference(IReadOnlyDictionary<string, string> expected, IReadOnlyDictionary<string, string> actual)
    {
        foreach (var (id, body) in expected)
        {
            if (!actual.TryGetValue(id, out var found))
            {
                return $"{id} is missing ({actual.Count} of {expected.Count} documents)";
            }

            if (found != body)
            {
                return $"{id} is {found}, expected {body}";
            }
        }

        foreach (var id in actual.Keys)
        {
            if (!expected.ContainsKey(id))
            {
                return $"{id} should not exist (deleted, or never written)";
            }
        }

        return null;
    }

    /// <summary>As <see cref="FirstDifference"/> for a downstream copy, where a deleted document's last message is a tombstone (or it never arrived if it was deleted before it was sent).</summary>
    public static string? FirstDifferenceWithTombstones(IReadOnlyDictionary<string, string?> expected, IReadOnlyDictionary<string, string?> actual)
    {
        foreach (var (id, body) in expected)
        {
            actual.TryGetValue(id, out var found);
            if (found != body)
            {
                return $"{id} ends at {found ?? "(nothing or a delete)"}, expected {body ?? "a delete"}";
            }
        }

        return null;
    }
}
