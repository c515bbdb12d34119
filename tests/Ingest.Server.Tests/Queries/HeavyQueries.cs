using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Ingest.Server.Tests.Queries;

/// <summary>
/// A server with orders and a query that would run for minutes: <c>Total >= 0</c> and then as many
/// <c>not (Total &lt; 0 and Total >= 0)</c> as the 64 KiB of query text hold. Each negation reads the whole range of
/// Total (one term per order) to find it matches nothing, so the work grows with orders x negations while memory stays
/// at one list of the orders: about 1,800 full reads of 300,000 terms, a minute or more (12 ms per read of 100,000
/// terms on the 2-core CI machine).
/// </summary>
internal static class HeavyQueries
{
    public const int Orders = 300_000;

    public const int MostNegations = 1_800;

    public static string Query(int negations = MostNegations) =>
        "from Orders where Total >= 0" + string.Concat(Enumerable.Repeat(" and not (Total < 0 and Total >= 0)", negations));

    /// <summary>The test header that makes a request's caller a key with these scopes (read, write, admin), as the key middleware would.</summary>
    public const string ScopesHeader = "x-test-scopes";

    /// <summary>A server whose requests with <see cref="ScopesHeader"/> have that caller.</summary>
    public static async Task<LimitsServer> StartAsync(params string[] settings)
    {
        var directory = new TestDirectory();
        try
        {
            var server = await RunningServer.StartAsync(
                directory.Path,
                app => app.Use((context, next) =>
                {
                    if (context.Request.Headers[ScopesHeader] is [{ } scopes])
                    {
                        context.SetApiCaller(new ApiCaller("test-" + scopes, Enum.Parse<ApiScopes>(scopes, ignoreCase: true)));
                    }

                    return next(context);
                }),
                settings);
            return new LimitsServer(directory, server);
        }
        catch
        {
            directory.Dispose();
            throw;
        }
    }

    public static async Task FillAsync(LimitsServer server, int orders = Orders)
    {
        await QueryTestKit.PutOrdersAsync(server.Store, orders);
        await QueryTestKit.QueryAsync(server.Client, "from Orders where Total >= 0 limit 1", wait: "120s");
    }

    public static async Task<HttpResponseMessage> PostAsync(LimitsServer server, string query, string? timeout = null, string? scopes = null, CancellationToken ct = default)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, ApiTestServer.Relative("/queries")) { Content = Body(query, timeout) };
        if (scopes is not null)
        {
            request.Headers.Add(ScopesHeader, scopes);
        }

        return await server.Client.SendAsync(request, ct);
    }

    public static HttpContent Body(string query, string? timeout = null)
    {
        var body = new Dictionary<string, object?> { ["query"] = query };
        if (timeout is not null)
        {
            body["timeout"] = timeout;
        }

        return ApiTestServer.Json(Encoding.UTF8.GetBytes(JsonSerializer.Serialize(body)));
    }

    public static async Task<JsonElement> ProblemAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == expected, $"expected {(int)expected}, got {(int)response.StatusCode}: {text}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return JsonDocument.Parse(text).RootElement.Clone();
    }
}
