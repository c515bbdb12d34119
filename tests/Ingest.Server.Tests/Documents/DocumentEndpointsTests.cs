using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Testing;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using Ingest.Server.Documents;

namespace Ingest.Server.Tests.Documents;

public sealed class DocumentEndpointsTests
{
    [Fact]
    public async Task Put_then_get_round_trips_the_body_bytes_exactly_with_etag_last_modified_and_collection_headers()
    {
        await using var server = await StartAsync();
        // Spacing, escapes, number forms and non-ASCII text that a re-serialiser would change.
        var body = Encoding.UTF8.GetBytes("{ \"name\" : \"caf\\u00e9 ü\",\n  \"n\": 1.50e0, \"nested\": {\"a\":[1, 2 ,3]} }");

        using var put = await server.Client.PutAsync(Relative("/docs/orders/1-A?collection=Orders"), Json(body));
        var created = await ReadJsonAsync(put, HttpStatusCode.Created);
        Assert.Equal("orders/1-A", created.GetProperty("id").GetString());
        Assert.Equal("Orders", created.GetProperty("collection").GetString());
        var etag = created.GetProperty("etag").GetInt64();
        Assert.Equal($"\"{etag}\"", put.Headers.ETag?.Tag);

        using var get = await server.Client.GetAsync(Relative("/docs/ORDERS/1-a"));
        Assert.Equal(HttpStatusCode.OK, get.StatusCode);
        Assert.Equal("application/json", get.Content.Headers.ContentType?.MediaType);
        Assert.Equal(body, await get.Content.ReadAsByteArrayAsync());
        Assert.Equal($"\"{etag}\"", get.Headers.ETag?.Tag);
        Assert.Equal("Orders", Assert.Single(get.Headers.GetValues(DocumentEndpoints.CollectionHeader)));
        var lastModified = get.Content.Headers.LastModified;
        Assert.NotNull(lastModified);
        Assert.InRange(lastModified.Value, DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddMinutes(1));
    }

    [Fact]
    public async Task A_get_with_the_current_etag_in_if_none_match_is_304_and_with_an_old_one_200()
    {
        await using var server = await StartAsync();
        using (await server.PutAsync("/docs/c/1?collection=C", "{\"v\":1}"))
        {
        }

        using var current = new HttpRequestMessage(HttpMethod.Get, Relative("/docs/c/1"));
        current.Headers.IfNoneMatch.Add(new EntityTagHeaderValue("\"1\""));
        using var notModified = await server.Client.SendAsync(current);
        Assert.Equal(HttpStatusCode.NotModified, notModified.StatusCode);

        using (await server.PutAsync("/docs/c/1", "{\"v\":2}"))
        {
        }

        using var stale = new HttpRequestMessage(HttpMethod.Get, Relative("/docs/c/1"));
        stale.Headers.IfNoneMatch.Add(new EntityTagHeaderValue("\"1\""));
        using var changed = await server.Client.SendAsync(stale);
        Assert.Equal(HttpStatusCode.OK, changed.StatusCode);
        Assert.Equal("\"2\"", changed.Headers.ETag?.Tag);
        Assert.Equal("{\"v\":2}", await changed.Content.ReadAsStringAsync());
    }

    [Fact]
    public async Task Replacing_a_document_returns_200_a_higher_etag_and_keeps_its_collection_when_none_is_given()
    {
        await using var server = await StartAsync();
        using var first = await server.PutAsync("/docs/users/1?collection=Users", "{\"v\":1}");
        var firstEtag = (await ReadJsonAsync(first, HttpStatusCode.Created)).GetProperty("etag").GetInt64();

        using var second = await server.PutAsync("/docs/USERS/1", "{\"v\":2}");
        var replaced = await ReadJsonAsync(second, HttpStatusCode.OK);

        Assert.True(replaced.GetProperty("etag").GetInt64() > firstEtag);
        Assert.Equal("Users", replaced.GetProperty("collection").GetString());
        Assert.Equal("USERS/1", replaced.GetProperty("id").GetString());
        Assert.Equal("{\"v\":2}", await server.Client.GetStringAsync(Relative("/docs/users/1")));
    }

    [Fact]
    public async Task Put_takes_the_collection_from_the_ingest_collection_header_when_the_query_has_none()
    {
        await using var server = await StartAsync();

        using var response = await server.PutWithCollectionHeaderAsync("/docs/p%2F1", "Products");

        var written = await ReadJsonAsync(response, HttpStatusCode.Created);
        Assert.Equal("p/1", written.GetProperty("id").GetString());
        Assert.Equal("Products", written.GetProperty("collection").GetString());
        Assert.Equal("Products", server.Store.Get("p/1")?.Collection);
    }

    [Fact]
    public async Task Put_of_a_new_document_without_a_collection_is_a_400_problem_naming_the_parameter()
    {
        await using var server = await StartAsync();

        using var response = await server.PutAsync("/docs/new/1", "{}");

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("'collection'", detail, StringComparison.Ordinal);
        Assert.Contains("ingest-collection", detail, StringComparison.Ordinal);
        Assert.Null(server.Store.Get("new/1"));
    }

    [Fact]
    public async Task Put_of_invalid_json_is_a_400_problem_with_the_store_message_and_the_position()
    {
        await using var server = await StartAsync();

        using var response = await server.PutAsync("/docs/bad/1?collection=C", "{\n  \"a\": tru }");

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("not valid JSON", detail, StringComparison.Ordinal);
        Assert.Contains("LineNumber: 1", detail, StringComparison.Ordinal);
        Assert.Contains("BytePositionInLine", detail, StringComparison.Ordinal);
        Assert.Contains("bad/1", detail, StringComparison.Ordinal);
        Assert.Null(server.Store.Get("bad/1"));
    }

    [Theory]
    [MemberData(nameof(InvalidUtf8Bodies.Names), MemberType = typeof(InvalidUtf8Bodies))]
    public async Task Put_of_a_body_that_is_not_valid_utf8_is_a_400_problem_naming_the_byte_offset(string name)
    {
        await using var server = await StartAsync();

        using var response = await server.Client.PutAsync(Relative("/docs/bad/1?collection=C"), Json(InvalidUtf8Bodies.Body(name)));

        var detail = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains($"the body is not valid UTF-8 at byte {InvalidUtf8Bodies.Offset(name)}", detail, StringComparison.Ordinal);
        Assert.Null(server.Store.Get("bad/1"));
        using var get = await server.Client.GetAsync(Relative("/docs/bad/1"));
        Assert.Equal(HttpStatusCode.NotFound, get.StatusCode);
    }

    [Fact]
    public async Task Put_of_a_json_array_or_a_too_long_collection_is_a_400_problem_with_the_store_message()
    {
        await using var server = await StartAsync();

        using var array = await server.PutAsync("/docs/a?collection=C", "[1,2]");
        Assert.Contains("a document is a JSON object", await ReadProblemAsync(array, HttpStatusCode.BadRequest), StringComparison.Ordinal);

        using var longName = await server.PutAsync($"/docs/a?collection={new string('c', 200)}", "{}");
        Assert.Contains("collection name", await ReadProblemAsync(longName, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_with_a_non_json_content_type_is_a_415_problem()
    {
        await using var server = await StartAsync();

        using var response = await server.Client.PutAsync(Relative("/docs/a?collection=C"), new StringContent("{}", Encoding.UTF8, "text/plain"));

        Assert.Contains("text/plain", await ReadProblemAsync(response, HttpStatusCode.UnsupportedMediaType), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_of_a_body_over_the_store_limit_is_a_413_problem_whether_its_length_is_declared_or_not()
    {
        await using var server = await StartAsync();
        var limit = server.Store.Options.MaxBodyBytes;
        var body = new byte[limit + 1];
        body[0] = (byte)'{';
        body.AsSpan(1, limit - 1).Fill((byte)' ');
        body[^1] = (byte)'}';

        // Kestrel's limit is the same, so it closes the connection rather than drain a body over it:
        // a client learns of the 413 before uploading by asking for 100-continue (curl does for large bodies).
        using var declaredRequest = new HttpRequestMessage(HttpMethod.Put, Relative("/docs/big?collection=C")) { Content = Json(body) };
        declaredRequest.Headers.ExpectContinue = true;
        using var declared = await server.Client.SendAsync(declaredRequest);
        Assert.Contains($"the limit is {limit} bytes", await ReadProblemAsync(declared, HttpStatusCode.RequestEntityTooLarge), StringComparison.Ordinal);

        // Without Content-Length the server must count as it reads.
        using var chunked = new StreamContent(new UnseekableStream(body));
        chunked.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        using var streamed = await server.Client.PutAsync(Relative("/docs/big?collection=C"), chunked);
        Assert.Contains($"the limit is {limit} bytes", await ReadProblemAsync(streamed, HttpStatusCode.RequestEntityTooLarge), StringComparison.Ordinal);

        var exact = new byte[limit];
        exact.AsSpan().Fill((byte)' ');
        exact[0] = (byte)'{';
        exact[^1] = (byte)'}';
        using var atLimit = await server.Client.PutAsync(Relative("/docs/big?collection=C"), Json(exact));
        Assert.Equal(HttpStatusCode.Created, atLimit.StatusCode);
        Assert.Equal(limit, server.Store.Get("big")!.Body.Length);
    }

    [Fact]
    public async Task Get_of_a_missing_or_deleted_document_is_a_404_problem_naming_the_id()
    {
        await using var server = await StartAsync();
        using (await server.PutAsync("/docs/gone?collection=C", "{}"))
        {
        }

        using var deleted = await server.Client.DeleteAsync(Relative("/docs/gone"));
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);

        using var get = await server.Client.GetAsync(Relative("/docs/gone"));
        Assert.Contains("'gone'", await ReadProblemAsync(get, HttpStatusCode.NotFound), StringComparison.Ordinal);
        using var never = await server.Client.GetAsync(Relative("/docs/never/was"));
        Assert.Contains("'never/was'", await ReadProblemAsync(never, HttpStatusCode.NotFound), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Delete_of_a_missing_document_is_a_404_problem_and_takes_no_etag()
    {
        await using var server = await StartAsync();
        var before = server.Store.LastEtag;

        using var response = await server.Client.DeleteAsync(Relative("/docs/nothing/here"));

        Assert.Contains("'nothing/here'", await ReadProblemAsync(response, HttpStatusCode.NotFound), StringComparison.Ordinal);
        Assert.Equal(before, server.Store.LastEtag);
    }

    [Fact]
    public async Task Paging_250_documents_by_100_returns_each_exactly_once_in_etag_order_with_bodies_embedded()
    {
        await using var server = await StartAsync();
        var batch = new Ingest.Documents.WriteBatch();
        for (var i = 0; i < 250; i++)
        {
            batch.Put($"items/{i}", "Items", $"{{\"n\":{i}}}");
        }

        batch.Put("other/1", "Other", "{}");
        await server.Store.WriteAsync(batch);

        var seen = new HashSet<string>(StringComparer.Ordinal);
        var pages = 0;
        long lastEtag = 0;
        string? next = null;
        do
        {
            var page = await server.GetJsonAsync($"/docs?collection=items&pageSize=100{(next is null ? "" : "&start=" + next)}");
            pages++;
            Assert.Equal("items", page.GetProperty("collection").GetString());
            foreach (var item in page.GetProperty("items").EnumerateArray())
            {
                var etag = item.GetProperty("etag").GetInt64();
                Assert.True(etag > lastEtag);
                lastEtag = etag;
                Assert.Equal("Items", item.GetProperty("collection").GetString());
                var document = item.GetProperty("document");
                Assert.Equal(JsonValueKind.Object, document.ValueKind);
                var id = item.GetProperty("id").GetString()!;
                Assert.Equal($"items/{document.GetProperty("n").GetInt32()}", id);
                Assert.True(seen.Add(id), $"{id} came twice");
                Assert.True(item.TryGetProperty("lastModified", out _));
            }

            var nextElement = page.GetProperty("next");
            next = nextElement.ValueKind == JsonValueKind.Null ? null : nextElement.GetInt64().ToString(System.Globalization.CultureInfo.InvariantCulture);
        }
        while (next is not null && pages < 10);

        Assert.Equal(3, pages);
        Assert.Equal(250, seen.Count);
    }

    [Fact]
    public async Task A_page_read_with_the_shared_json_context_keeps_each_document_byte_for_byte()
    {
        await using var server = await StartAsync();
        var body = "{ \"x\" : \"\\u00e9\", \"y\": [ 1 , 2.0 ] }";
        using (await server.PutAsync("/docs/k/1?collection=K", body))
        {
        }

        var bytes = await server.Client.GetByteArrayAsync(Relative("/docs?collection=K"));
        var page = JsonSerializer.Deserialize(bytes, Ingest.Contracts.Http.IngestHttpJsonContext.Default.CollectionPage);

        Assert.NotNull(page);
        var item = Assert.Single(page.Items);
        Assert.Equal("k/1", item.Id);
        Assert.Equal(body, Encoding.UTF8.GetString(item.Document.Utf8.Span));
        Assert.Null(page.Next);
    }

    [Fact]
    public async Task A_last_page_that_is_exactly_full_says_there_is_no_next_page()
    {
        await using var server = await StartAsync();
        await server.Store.WriteAsync(new Ingest.Documents.WriteBatch().Put("a", "C", "{}").Put("b", "C", "{}"));

        var page = await server.GetJsonAsync("/docs?collection=C&pageSize=2");

        Assert.Equal(2, page.GetProperty("items").GetArrayLength());
        Assert.Equal(JsonValueKind.Null, page.GetProperty("next").ValueKind);
        var unknown = await server.GetJsonAsync("/docs?collection=nothing");
        Assert.Equal(0, unknown.GetProperty("items").GetArrayLength());
    }

    [Theory]
    [InlineData("/docs", "'collection'")]
    [InlineData("/docs?collection=C&pageSize=0", "'pageSize' is '0'")]
    [InlineData("/docs?collection=C&pageSize=1001", "'pageSize' is '1001'")]
    [InlineData("/docs?collection=C&pageSize=ten", "'pageSize' is 'ten'")]
    [InlineData("/docs?collection=C&start=-1", "'start' is '-1'")]
    [InlineData("/docs?collection=C&start=x", "'start' is 'x'")]
    public async Task Bad_paging_parameters_are_400_problems_naming_the_parameter_and_value(string path, string expected)
    {
        await using var server = await StartAsync();

        using var response = await server.Client.GetAsync(Relative(path));

        Assert.Contains(expected, await ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }
}
