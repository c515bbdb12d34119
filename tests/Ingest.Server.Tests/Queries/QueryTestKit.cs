using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting.Http;

namespace Ingest.Server.Tests.Queries;

/// <summary>Orders to query and the requests the query tests send.</summary>
internal static class QueryTestKit
{
    public static readonly string[] Statuses = ["new", "shipped", "cancelled"];

    /// <summary>Order <paramref name="i"/>: Customer acme-/globex-, Status by i % 3, Total = i, OrderedAt one minute apart, Notes, Tags, Discount on every 4th.</summary>
    public static string Order(int i)
    {
        var customer = (i % 2 == 0 ? "acme-" : "globex-") + (i % 5).ToString(CultureInfo.InvariantCulture);
        var orderedAt = new DateTime(2026, 11, 1, 0, 0, 0, DateTimeKind.Utc).AddMinutes(i).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);
        var notes = i % 7 == 0 ? "late delivery again" : "all fine";
        var tags = i % 10 == 0 ? "[\"urgent\",\"vip\"]" : i % 3 == 0 ? "[\"vip\"]" : "[]";
        var discount = i % 4 == 0 ? $",\"Discount\":{i % 9}" : string.Empty;
        return $$"""{"Customer":"{{customer}}","Status":"{{Statuses[i % 3]}}","Total":{{i}},"OrderedAt":"{{orderedAt}}","Notes":"{{notes}}","Tags":{{tags}}{{discount}}}""";
    }

    public static async Task PutOrdersAsync(DocumentStore store, int count, int from = 0)
    {
        for (var start = from; start < from + count; start += 10_000)
        {
            var batch = new WriteBatch();
            for (var i = start; i < Math.Min(from + count, start + 10_000); i++)
            {
                batch.Put($"orders/{i}", "Orders", Order(i));
            }

            await store.WriteAsync(batch);
        }
    }

    /// <summary>POSTs a query (waiting for the index to catch up unless told otherwise) and returns the 200 answer.</summary>
    public static async Task<JsonElement> QueryAsync(HttpClient client, string query, object? parameters = null, string? wait = "30s", string? continuation = null)
    {
        using var response = await PostAsync(client, query, parameters, wait, continuation);
        return await ApiTestServer.ReadJsonAsync(response, HttpStatusCode.OK);
    }

    public static Task<HttpResponseMessage> PostAsync(HttpClient client, string query, object? parameters = null, string? wait = "30s", string? continuation = null)
    {
        var body = new Dictionary<string, object?> { ["query"] = query };
        if (parameters is not null)
        {
            body["parameters"] = parameters;
        }

        if (wait is not null)
        {
            body["waitForNonStale"] = wait;
        }

        if (continuation is not null)
        {
            body["continuation"] = continuation;
        }

        return client.PostAsync(ApiTestServer.Relative("/queries"), ApiTestServer.Json(Encoding.UTF8.GetBytes(JsonSerializer.Serialize(body))));
    }

    public static List<JsonElement> Results(JsonElement answer) => [.. answer.GetProperty("results").EnumerateArray()];

    public static List<string> Ids(JsonElement answer) => [.. Results(answer).Select(r => r.GetProperty("id").GetString()!)];

    public static int Number(string id) => int.Parse(id.AsSpan(id.IndexOf('/', StringComparison.Ordinal) + 1), CultureInfo.InvariantCulture);
}
