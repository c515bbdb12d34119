using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Documents;

/// <summary>How ids are written in /docs paths: decoded exactly once, '/' and %2F alike, valid UTF-8 only.</summary>
public sealed class DocumentIdTests
{
    [Fact]
    public async Task An_encoded_percent_is_decoded_once_so_x_percent_252F_y_is_the_id_x_percent_2F_y()
    {
        await using var server = await StartAsync();

        var put = await server.SendRawAsync("PUT", "/docs/x%252Fy?collection=C", "{\"v\":1}");

        Assert.Equal(201, put.Status);
        Assert.Contains("\"id\":\"x%2Fy\"", put.Body, StringComparison.Ordinal);
        Assert.Equal("/docs/x%252Fy", put.Headers["Location"]);
        Assert.NotNull(server.Store.Get("x%2Fy"));
        Assert.Null(server.Store.Get("x/y"));
        Assert.Equal(200, (await server.SendRawAsync("GET", "/docs/x%252Fy")).Status);
        Assert.Equal(404, (await server.SendRawAsync("GET", "/docs/x/y")).Status);
        Assert.Equal(404, (await server.SendRawAsync("GET", "/docs/x%2Fy")).Status);
        Assert.Equal(204, (await server.SendRawAsync("DELETE", "/docs/x%252Fy")).Status);
        Assert.Null(server.Store.Get("x%2Fy"));
    }

    [Theory]
    [InlineData("/docs/orders/1", "/docs/orders%2F1")]
    [InlineData("/docs/orders%2F1", "/docs/orders/1")]
    [InlineData("/docs/orders%2f1", "/docs/ORDERS/1")]
    public async Task A_slash_and_an_encoded_slash_address_the_same_id_for_put_get_and_delete(string putPath, string otherPath)
    {
        await using var server = await StartAsync();

        Assert.Equal(201, (await server.SendRawAsync("PUT", putPath + "?collection=Orders", "{}")).Status);

        Assert.NotNull(server.Store.Get("orders/1"));
        Assert.Equal(200, (await server.SendRawAsync("GET", otherPath)).Status);
        Assert.Equal(200, (await server.SendRawAsync("PUT", otherPath, "{\"v\":2}")).Status);
        Assert.Equal(204, (await server.SendRawAsync("DELETE", otherPath)).Status);
        Assert.Null(server.Store.Get("orders/1"));
    }

    [Fact]
    public async Task Percent_encoded_utf8_is_decoded_into_the_id()
    {
        await using var server = await StartAsync();

        Assert.Equal(201, (await server.SendRawAsync("PUT", "/docs/caf%C3%A9/%E2%82%AC?collection=C", "{}")).Status);

        Assert.Equal("café/€", server.Store.Get("CAFÉ/€")?.Id);
        Assert.Equal(200, (await server.SendRawAsync("GET", "/docs/caf%c3%a9%2f%e2%82%ac")).Status);
    }

    [Theory]
    [InlineData("PUT", "%ED%A0%80")]
    [InlineData("PUT", "%FF")]
    [InlineData("PUT", "%C0%AF")]
    [InlineData("PUT", "a%E2%82")]
    [InlineData("GET", "%ED%A0%80")]
    [InlineData("GET", "%FF")]
    [InlineData("DELETE", "%C0%AF")]
    public async Task An_id_whose_percent_encoding_is_not_valid_utf8_is_a_400_problem_naming_the_id(string method, string id)
    {
        await using var server = await StartAsync();

        var response = await server.SendRawAsync(method, $"/docs/{id}?collection=C", method == "PUT" ? "{}" : null);

        var detail = response.ProblemDetail(400);
        Assert.Contains("'id'", detail, StringComparison.Ordinal);
        Assert.Contains("not valid UTF-8", detail, StringComparison.Ordinal);
        Assert.Equal(0, server.Store.LastEtag);
    }

    [Theory]
    [InlineData("50%off")]
    [InlineData("a%G1")]
    [InlineData("trailing%2")]
    public async Task A_percent_not_followed_by_two_hex_digits_is_a_400_problem(string id)
    {
        await using var server = await StartAsync();

        var response = await server.SendRawAsync("PUT", $"/docs/{id}?collection=C", "{}");

        Assert.Contains("write a literal '%' as %25", response.ProblemDetail(400), StringComparison.Ordinal);
        Assert.Equal(0, server.Store.LastEtag);
    }

    [Theory]
    [InlineData("/docs/a/../b")]
    [InlineData("/docs/a/%2E%2E/b")]
    [InlineData("/docs/./b")]
    [InlineData("/other/../docs/b")]
    public async Task A_path_with_dot_segments_is_a_400_problem_not_a_write_to_another_id(string path)
    {
        await using var server = await StartAsync();

        var response = await server.SendRawAsync("PUT", path + "?collection=C", "{}");

        Assert.Contains("'.' or '..'", response.ProblemDetail(400), StringComparison.Ordinal);
        Assert.Equal(0, server.Store.LastEtag);
    }
}
