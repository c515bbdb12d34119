using System.Net;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>Each query parameter of each endpoint is taken once; a repeat is a 400, never values joined with commas.</summary>
public sealed class QueryParameterTests
{
    [Theory]
    [InlineData("GET", "/docs?collection=a&collection=b", "collection")]
    [InlineData("GET", "/docs?collection=C&start=1&start=2", "start")]
    [InlineData("GET", "/docs?collection=C&pageSize=1&pageSize=2", "pageSize")]
    [InlineData("GET", "/docs?collection=C&pageSize=5&pageSize=5", "pageSize")]
    [InlineData("PUT", "/docs/d1?collection=a&collection=b", "collection")]
    [InlineData("PUT", "/docs/d1?collection=a&collection=", "collection")]
    [InlineData("GET", "/dead-letters?start=1&start=2", "start")]
    [InlineData("GET", "/dead-letters?pageSize=1&pageSize=2", "pageSize")]
    public async Task A_repeated_query_parameter_is_a_400_problem_naming_it(string method, string path, string parameter)
    {
        await using var server = await StartAsync();
        using var request = new HttpRequestMessage(new HttpMethod(method), Relative(path));
        if (method == "PUT")
        {
            request.Content = Json("{}");
        }

        using var response = await server.Client.SendAsync(request);

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains($"'{parameter}' is given 2 times", detail, StringComparison.Ordinal);
        Assert.Equal(0, server.Store.LastEtag);
    }

    [Fact]
    public async Task A_repeated_ingest_collection_header_is_a_400_problem_naming_it()
    {
        await using var server = await StartAsync();

        var response = await server.SendRawAsync("PUT", "/docs/d1", "{}", "ingest-collection: a", "ingest-collection: b");

        Assert.Contains("'ingest-collection' is given 2 times", response.ProblemDetail(400), StringComparison.Ordinal);
        Assert.Null(server.Store.Get("d1"));
    }
}
