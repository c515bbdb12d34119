using System.Net;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;

namespace Ingest.Server.Tests.Grafana;

/// <summary><c>PUT/GET/DELETE /grafana/queries/{name}</c>: validation, and that what was acknowledged survives a restart.</summary>
public sealed class SavedQueryTests
{
    [Fact]
    public async Task A_saved_query_is_created_replaced_listed_and_deleted()
    {
        await using var api = await ApiTestServer.StartAsync();

        using var created = await api.PutAsync("/grafana/queries/revenue", """{"query":"from Orders select sum(Total)","description":"Revenue"}""");
        using var replaced = await api.PutAsync("/grafana/queries/revenue", """{"query":"from Orders select sum(Total) as Revenue","parameters":{"min":10}}""");
        var one = await api.GetJsonAsync("/grafana/queries/revenue");
        var list = await api.GetJsonAsync("/grafana/queries");
        using var deleted = await api.Client.DeleteAsync(ApiTestServer.Relative("/grafana/queries/revenue"));
        using var gone = await api.Client.GetAsync(ApiTestServer.Relative("/grafana/queries/revenue"));
        using var deletedAgain = await api.Client.DeleteAsync(ApiTestServer.Relative("/grafana/queries/revenue"));

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
        Assert.Equal("from Orders select sum(Total) as Revenue", one.GetProperty("query").GetString());
        Assert.Equal(10, one.GetProperty("parameters").GetProperty("min").GetInt32());
        Assert.Equal("revenue", Assert.Single(list.EnumerateArray()).GetProperty("name").GetString());
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        await ApiTestServer.ReadProblemAsync(gone, HttpStatusCode.NotFound);
        await ApiTestServer.ReadProblemAsync(deletedAgain, HttpStatusCode.NotFound);
    }

    [Theory]
    [InlineData("/grafana/queries/bad", """{"query":"from Orders where"}""", "line 1, col 18")]
    [InlineData("/grafana/queries/bad", """{"description":"no query"}""", "no 'query'")]
    [InlineData("/grafana/queries/bad", """{"query":"from Orders","unknown":1}""", "not a saved query")]
    [InlineData("/grafana/queries/bad%20name", """{"query":"from Orders"}""", "not a valid name")]
    public async Task A_bad_saved_query_is_a_400_naming_the_problem_and_stores_nothing(string path, string body, string expected)
    {
        await using var api = await ApiTestServer.StartAsync();

        using var response = await api.PutAsync(path, body);

        Assert.Contains(expected, await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        Assert.Equal(0, (await api.GetJsonAsync("/grafana/queries")).GetArrayLength());
    }

    [Fact]
    public async Task Saved_queries_survive_a_restart()
    {
        using var testDirectory = new TestDirectory();
        var directory = testDirectory.Path;
        await using (var first = await RunningServer.StartAsync(directory))
        {
            using var put = await first.Client.PutAsync(ApiTestServer.Relative("/grafana/queries/per-status"), ApiTestServer.Json("""{"query":"from Orders group by Status select count()","parameters":{"s":"x"}}"""));
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
            using var other = await first.Client.PutAsync(ApiTestServer.Relative("/grafana/queries/to-delete"), ApiTestServer.Json("""{"query":"from Orders"}"""));
            using var delete = await first.Client.DeleteAsync(ApiTestServer.Relative("/grafana/queries/to-delete"));
            Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        }

        await using var second = await RunningServer.StartAsync(directory);
        using var response = await second.Client.GetAsync(ApiTestServer.Relative("/grafana/queries"));
        var list = await ApiTestServer.ReadJsonAsync(response, HttpStatusCode.OK);

        var saved = Assert.Single(list.EnumerateArray());
        Assert.Equal("per-status", saved.GetProperty("name").GetString());
        Assert.Equal("from Orders group by Status select count()", saved.GetProperty("query").GetString());
        Assert.Equal("x", saved.GetProperty("parameters").GetProperty("s").GetString());
    }
}
