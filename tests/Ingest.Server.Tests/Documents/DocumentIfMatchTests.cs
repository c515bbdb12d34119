using System.Net;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Documents;

/// <summary>
/// <c>If-Match</c> on <c>PUT</c> and <c>DELETE /docs/{id}</c> on one node (cluster mode has its own tests): a write
/// names the version it read, and one made over a version changed meanwhile is refused with 412, changing nothing.
/// </summary>
public sealed class DocumentIfMatchTests
{
    [Fact]
    public async Task A_put_with_the_current_etag_is_stored_and_one_with_a_changed_or_missing_version_is_412_naming_the_current_etag()
    {
        await using var server = await StartAsync();
        using (var created = await server.Client.PutAsync(Relative("/docs/orders/1?collection=Orders"), Json("{\"v\":1}")))
        {
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        }

        using (var matching = await SendAsync(server.Client, HttpMethod.Put, "/docs/orders/1", "\"1\"", "{\"v\":2}"))
        {
            var saved = await ReadJsonAsync(matching, HttpStatusCode.OK);
            Assert.Equal(2, saved.GetProperty("etag").GetInt64());
        }

        using (var stale = await SendAsync(server.Client, HttpMethod.Put, "/docs/orders/1", "\"1\"", "{\"v\":3}"))
        {
            var detail = await ReadProblemAsync(stale, HttpStatusCode.PreconditionFailed);
            Assert.Contains("the document 'orders/1' is at etag \"2\", not \"1\"", detail, StringComparison.Ordinal);
        }

        using (var body = await server.Client.GetAsync(Relative("/docs/orders/1")))
        {
            Assert.Equal("{\"v\":2}", await body.Content.ReadAsStringAsync());
        }

        using (var any = await SendAsync(server.Client, HttpMethod.Put, "/docs/orders/1", "*", "{\"v\":4}"))
        {
            Assert.Equal(HttpStatusCode.OK, any.StatusCode);
        }

        using (var missing = await SendAsync(server.Client, HttpMethod.Put, "/docs/orders/2?collection=Orders", "*", "{\"v\":1}"))
        {
            Assert.Contains("does not exist", await ReadProblemAsync(missing, HttpStatusCode.PreconditionFailed), StringComparison.Ordinal);
        }

        using (var malformed = await SendAsync(server.Client, HttpMethod.Put, "/docs/orders/1", "3", "{\"v\":5}"))
        {
            Assert.Contains("is not a list of quoted etags", await ReadProblemAsync(malformed, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_delete_with_a_changed_version_is_412_and_keeps_the_document_while_the_current_etag_deletes_it()
    {
        await using var server = await StartAsync();
        using (await server.Client.PutAsync(Relative("/docs/c/1?collection=C"), Json("{\"v\":1}")))
        {
        }

        using (await server.Client.PutAsync(Relative("/docs/c/1"), Json("{\"v\":2}")))
        {
        }

        using (var stale = await SendAsync(server.Client, HttpMethod.Delete, "/docs/c/1", "\"1\"", null))
        {
            await ReadProblemAsync(stale, HttpStatusCode.PreconditionFailed);
        }

        using (var still = await server.Client.GetAsync(Relative("/docs/c/1")))
        {
            Assert.Equal(HttpStatusCode.OK, still.StatusCode);
        }

        using var current = await SendAsync(server.Client, HttpMethod.Delete, "/docs/c/1", "\"2\"", null);
        Assert.Equal(HttpStatusCode.NoContent, current.StatusCode);
    }

    private static async Task<HttpResponseMessage> SendAsync(HttpClient client, HttpMethod method, string path, string ifMatch, string? json)
    {
        using var request = new HttpRequestMessage(method, Relative(path));
        request.Headers.TryAddWithoutValidation("If-Match", ifMatch);
        if (json is not null)
        {
            request.Content = Json(json);
        }

        return await client.SendAsync(request);
    }
}
