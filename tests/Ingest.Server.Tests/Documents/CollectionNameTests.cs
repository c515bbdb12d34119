using System.Net;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using Ingest.Server.Documents;

namespace Ingest.Server.Tests.Documents;

/// <summary>Collection names over HTTP: any Unicode name round-trips; blank names and control characters are refused.</summary>
public sealed class CollectionNameTests
{
    [Theory]
    [InlineData("Café", "UTF-8''Caf%C3%A9")]
    [InlineData("注文", "UTF-8''%E6%B3%A8%E6%96%87")]
    [InlineData("Orders", "Orders")]
    public async Task A_document_in_a_non_ascii_collection_is_readable_and_its_collection_header_is_rfc8187_encoded(string collection, string header)
    {
        await using var server = await StartAsync();

        using var put = await server.PutAsync($"/docs/cafe1?collection={Uri.EscapeDataString(collection)}", "{\"v\":1}");
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        using var get = await server.Client.GetAsync(Relative("/docs/cafe1"));

        Assert.Equal(HttpStatusCode.OK, get.StatusCode);
        Assert.Equal("{\"v\":1}", await get.Content.ReadAsStringAsync());
        Assert.Equal(header, Assert.Single(get.Headers.GetValues(DocumentEndpoints.CollectionHeader)));
        var page = await server.GetJsonAsync($"/docs?collection={Uri.EscapeDataString(collection)}");
        Assert.Equal(collection, page.GetProperty("items")[0].GetProperty("collection").GetString());
    }

    [Fact]
    public async Task The_ingest_collection_header_may_carry_an_rfc8187_encoded_name()
    {
        await using var server = await StartAsync();

        using var response = await server.PutWithCollectionHeaderAsync("/docs/p1", "UTF-8''Caf%C3%A9");

        Assert.Equal("Café", (await ReadJsonAsync(response, HttpStatusCode.Created)).GetProperty("collection").GetString());
        Assert.Equal("Café", server.Store.Get("p1")?.Collection);
    }

    [Theory]
    [InlineData("Bell%07", "U+0007")]
    [InlineData("Line%0D%0ABreak", "U+000D")]
    [InlineData("Nul%00", "U+0000")]
    [InlineData("%E2%80%AEevil", "U+202E")]
    public async Task Put_with_a_control_character_in_the_collection_is_a_400_problem_naming_it(string encodedCollection, string expected)
    {
        await using var server = await StartAsync();

        using var response = await server.PutAsync($"/docs/c1?collection={encodedCollection}", "{}");

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("collection name", detail, StringComparison.Ordinal);
        Assert.Contains(expected, detail, StringComparison.Ordinal);
        Assert.Null(server.Store.Get("c1"));
    }

    [Theory]
    [InlineData("/docs/w1?collection=%20%20")]
    [InlineData("/docs/w1?collection=%09")]
    [InlineData("/docs/w1?collection=")]
    public async Task Put_with_a_blank_collection_parameter_is_a_400_problem_naming_the_parameter(string path)
    {
        await using var server = await StartAsync();

        using var response = await server.PutAsync(path, "{}");

        Assert.Contains("'collection'", await ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        Assert.Null(server.Store.Get("w1"));
    }

    [Theory]
    [InlineData("UTF-8''%20%20")]
    [InlineData("UTF-8''%FF")]
    public async Task Put_with_a_blank_or_malformed_ingest_collection_header_is_a_400_problem_naming_the_header(string value)
    {
        await using var server = await StartAsync();

        using var response = await server.PutWithCollectionHeaderAsync("/docs/h1", value);

        Assert.Contains("ingest-collection", await ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        Assert.Null(server.Store.Get("h1"));
    }

    [Fact]
    public async Task Get_of_a_page_with_a_blank_collection_is_a_400_problem_naming_the_parameter()
    {
        await using var server = await StartAsync();

        using var response = await server.Client.GetAsync(Relative("/docs?collection=%20"));

        Assert.Contains("'collection'", await ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }
}
