using System.Net;
using Ingest.Indexing.Definitions;
using Ingest.Query.AutoIndexes;
using Ingest.Server.Tests.Hosting.Http;

namespace Ingest.Server.Tests.Queries;

/// <summary>
/// A key with only the read scope may query every index that exists but not make or widen an automatic one, unless
/// <c>Ingest:Queries:ReadKeysCreateAutoIndexes</c> says so. The caller is set as the key middleware sets it (see
/// <see cref="HeavyQueries.ScopesHeader"/>), so these tests do not depend on how keys are configured.
/// </summary>
public sealed class ReadKeyAutoIndexTests
{
    [Fact]
    public async Task A_read_key_query_that_needs_a_new_automatic_index_gets_403_naming_it_and_nothing_is_made()
    {
        await using var server = await HeavyQueries.StartAsync();
        await QueryTestKit.PutOrdersAsync(server.Store, 100);

        using var response = await HeavyQueries.PostAsync(server, "from Orders where Status = 'shipped'", scopes: "read");
        var problem = await HeavyQueries.ProblemAsync(response, HttpStatusCode.Forbidden);

        Assert.Equal("urn:ingest:problem:auto-index-denied", problem.GetProperty("type").GetString());
        Assert.Equal("write", problem.GetProperty("requiredScope").GetString());
        Assert.Equal("Auto/Orders/ByStatus", problem.GetProperty("index").GetString());
        var detail = problem.GetProperty("detail").GetString()!;
        Assert.Contains("field Status, which would be made as automatic index 'Auto/Orders/ByStatus'", detail, StringComparison.Ordinal);
        Assert.Contains("PUT /indexes/Auto/Orders/ByStatus with an admin key", detail, StringComparison.Ordinal);
        Assert.Contains("Ingest:Queries:ReadKeysCreateAutoIndexes", detail, StringComparison.Ordinal);
        Assert.Null(server.Engine.Indexes.GetStatus("Auto/Orders/ByStatus"));

        using var explain = await SendAsync(server, HttpMethod.Get, "/queries/explain?q=" + Uri.EscapeDataString("from Orders where Status = 'shipped'"), "read");
        await HeavyQueries.ProblemAsync(explain, HttpStatusCode.Forbidden);
        Assert.Null(server.Engine.Indexes.GetStatus("Auto/Orders/ByStatus"));
    }

    [Fact]
    public async Task A_read_key_uses_indexes_that_exist_but_may_not_widen_an_automatic_one()
    {
        await using var server = await HeavyQueries.StartAsync();
        await HeavyQueries.FillAsync(server, 100); // made Auto/Orders/ByTotal with an unrestricted caller
        await server.Engine.Indexes.PutAsync(new IndexDefinition("Orders/ByCustomer", ["Orders"], [new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword)]));

        Assert.Equal(HttpStatusCode.OK, (await HeavyQueries.PostAsync(server, "from Orders where Total > 10 limit 1", scopes: "read")).StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await HeavyQueries.PostAsync(server, "from Orders where Customer = 'acme-0' limit 1", scopes: "read")).StatusCode);

        using var widen = await HeavyQueries.PostAsync(server, "from Orders where Total > 10 and Status = 'new'", scopes: "read");
        var problem = await HeavyQueries.ProblemAsync(widen, HttpStatusCode.Forbidden);
        Assert.Contains("would widen automatic index 'Auto/Orders/ByTotal' into 'Auto/Orders/ByStatusAndTotal'", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("write", false)]
    [InlineData("admin", false)]
    [InlineData("read", true)]
    public async Task A_write_or_admin_key_makes_the_index_and_so_does_a_read_key_when_configured(string scopes, bool readKeysCreate)
    {
        await using var server = await HeavyQueries.StartAsync($"--Ingest:Queries:ReadKeysCreateAutoIndexes={readKeysCreate}");
        await QueryTestKit.PutOrdersAsync(server.Store, 100);

        using var response = await HeavyQueries.PostAsync(server, "from Orders where Status = 'shipped' limit 1", scopes: scopes);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.NotNull(server.Engine.Indexes.GetStatus("Auto/Orders/ByStatus"));
    }

    [Fact]
    public async Task Grafana_queries_of_a_read_key_get_the_same_403_with_the_message_a_panel_shows()
    {
        await using var server = await HeavyQueries.StartAsync();
        await QueryTestKit.PutOrdersAsync(server.Store, 100);
        const string Body = """{"range":{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z"},"intervalMs":60000,"maxDataPoints":100,"targets":[{"refId":"A","target":"from Orders where Status = 'shipped' group by Status select count()"}]}""";

        using var request = new HttpRequestMessage(HttpMethod.Post, ApiTestServer.Relative("/grafana/query")) { Content = ApiTestServer.Json(Body) };
        request.Headers.Add(HeavyQueries.ScopesHeader, "read");
        using var response = await server.Client.SendAsync(request);
        var problem = await HeavyQueries.ProblemAsync(response, HttpStatusCode.Forbidden);

        Assert.Contains("Auto/Orders/ByStatus", problem.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public void The_denial_names_collection_index_fields_and_what_it_widens()
    {
        var error = new AutoIndexDeniedException("Orders", "Auto/Orders/ByStatusAndTotal", ["Status", "Total"], "Auto/Orders/ByTotal");
        Assert.Equal(
            "The query needs an index on collection 'Orders' with fields Status, Total, which would widen automatic index 'Auto/Orders/ByTotal' into 'Auto/Orders/ByStatusAndTotal', and this query may not make one.",
            error.Message);
    }

    private static async Task<HttpResponseMessage> SendAsync(LimitsServer server, HttpMethod method, string path, string scopes)
    {
        using var request = new HttpRequestMessage(method, ApiTestServer.Relative(path));
        request.Headers.Add(HeavyQueries.ScopesHeader, scopes);
        return await server.Client.SendAsync(request);
    }
}
