using Ingest.Documents;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>Continuation tokens over HTTP: pages follow each other with no repeat and no skip while documents arrive between them.</summary>
public sealed class QueryContinuationTests
{
    private const int Orders = 1_000;

    [Theory]
    [InlineData("from Orders where Total >= 0 order by Total desc limit 97")]
    [InlineData("from Orders where Status != 'nothing' limit 97")]
    public async Task Pages_cover_every_document_once_while_new_ones_arrive(string query)
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, Orders);

        var seen = new List<int>();
        string? continuation = null;
        var pages = 0;
        do
        {
            var page = await QueryAsync(api.Client, query, continuation: continuation);
            seen.AddRange(Ids(page).Select(Number));
            continuation = page.GetProperty("continuation").ValueKind == System.Text.Json.JsonValueKind.String ? page.GetProperty("continuation").GetString() : null;
            pages++;

            // New orders between pages: they may or may not show up, but must not push an old one out or in twice.
            await api.Store.WriteAsync(new WriteBatch().Put($"orders/{Orders + pages}", "Orders", Order(Orders + pages)));
        }
        while (continuation is not null && pages < 100);

        Assert.Null(continuation);
        Assert.Equal(seen.Count, seen.Distinct().Count());
        Assert.Equal(Enumerable.Range(0, Orders), seen.Where(i => i < Orders).Order());
        if (query.Contains("order by", StringComparison.Ordinal))
        {
            var old = seen.Where(i => i < Orders).ToList();
            Assert.Equal(old.OrderByDescending(i => i), old);
        }
    }

    [Fact]
    public async Task A_token_that_is_not_one_is_a_400()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 10);

        using var response = await PostAsync(api.Client, "from Orders where Total >= 0 limit 5", continuation: "not-a-token");

        var detail = await ApiTestServer.ReadProblemAsync(response, System.Net.HttpStatusCode.BadRequest);
        Assert.Contains("continuation", detail, StringComparison.OrdinalIgnoreCase);
    }
}
