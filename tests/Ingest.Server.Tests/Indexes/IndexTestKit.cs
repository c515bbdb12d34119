using System.Text.Json;
using Ingest.Indexing.Runtime;
using Ingest.Server.Indexes;
using Microsoft.Extensions.DependencyInjection;
using Ingest.Query;

namespace Ingest.Server.Tests.Indexes;

/// <summary>Definitions and waits shared by the index tests.</summary>
internal static class IndexTestKit
{
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(90);

    /// <summary>Customer (keyword, field 0) and Total (number, field 1) of Orders.</summary>
    public const string OrdersByCustomer = """
        {"collections":["Orders"],"fields":[{"name":"Customer","path":"customer","type":"keyword"},{"name":"Total","path":"total","type":"number"}]}
        """;

    public static IndexSet Manager(IServiceProvider services) => services.GetRequiredService<QueryEngine>().Indexes;

    /// <summary>Waits, through GET /indexes/{name}, until the index is not stale and has indexed at least <paramref name="etag"/>.</summary>
    public static async Task<JsonElement> WaitUntilCaughtUpAsync(HttpClient client, string name, long etag)
    {
        var deadline = DateTime.UtcNow + Timeout;
        JsonElement last = default;
        while (DateTime.UtcNow < deadline)
        {
            using var response = await client.GetAsync(new Uri("/indexes/" + name, UriKind.Relative));
            if (response.IsSuccessStatusCode)
            {
                using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
                last = document.RootElement.Clone();
                if (!last.GetProperty("stale").GetBoolean() && last.GetProperty("lastIndexedEtag").GetInt64() >= etag && last.GetProperty("pendingRebuild").ValueKind == JsonValueKind.Null)
                {
                    return last;
                }
            }

            await Task.Delay(50);
        }

        throw new TimeoutException($"index '{name}' did not catch up with etag {etag} within {Timeout}; last seen: {last}");
    }

    /// <summary>How many documents the index's current build holds under <paramref name="term"/> (encoded as the field's type encodes it).</summary>
    public static int LookupCount(IndexSet manager, string name, int field, ReadOnlySpan<byte> term)
    {
        using var reader = manager.BeginRead(name) ?? throw new InvalidOperationException($"index '{name}' cannot be read");
        var entries = new List<long>();
        reader.Lookup(field, term, entries);
        return entries.Count;
    }
}
