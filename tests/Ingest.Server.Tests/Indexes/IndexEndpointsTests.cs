using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Indexes;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Indexes.IndexTestKit;

namespace Ingest.Server.Tests.Indexes;

/// <summary>PUT, GET, DELETE /indexes/{name}, GET /indexes and POST /indexes/{name}/reset against the real server.</summary>
public sealed class IndexEndpointsTests
{
    [Fact]
    public async Task Put_creates_an_index_then_the_same_definition_is_unchanged_and_a_changed_one_rebuilds()
    {
        await using var server = await StartAsync();

        using var created = await server.PutAsync("/indexes/Orders", OrdersByCustomer);
        var body = await ReadJsonAsync(created, HttpStatusCode.Created);
        Assert.Equal("Orders", body.GetProperty("name").GetString());
        Assert.Equal("created", body.GetProperty("outcome").GetString());
        Assert.Equal("/indexes/Orders", created.Headers.Location?.OriginalString);

        using var unchanged = await server.PutAsync("/indexes/Orders", OrdersByCustomer);
        Assert.Equal("unchanged", (await ReadJsonAsync(unchanged, HttpStatusCode.OK)).GetProperty("outcome").GetString());

        using var changed = await server.PutAsync(
            "/indexes/Orders", """{"name":"Orders","collections":["Orders"],"fields":[{"name":"Customer","path":"customer","type":"keyword","exactCase":true}]}""");
        Assert.Equal("rebuilding", (await ReadJsonAsync(changed, HttpStatusCode.Accepted)).GetProperty("outcome").GetString());

        var caughtUp = await WaitUntilCaughtUpAsync(server.Client, "Orders", 0);
        var field = Assert.Single(caughtUp.GetProperty("definition").GetProperty("fields").EnumerateArray());
        Assert.True(field.GetProperty("exactCase").GetBoolean());
    }

    [Theory]
    [InlineData("/indexes/Orders/ByCustomer", "/indexes/Orders%2FByCustomer")]
    [InlineData("/indexes/Orders%2FByCustomer", "/indexes/Orders/ByCustomer")]
    [InlineData("/indexes/Orders%2fByCustomer", "/indexes/Orders/ByCustomer")]
    public async Task A_name_with_a_slash_is_addressed_by_a_literal_or_an_encoded_slash_alike(string putPath, string otherPath)
    {
        await using var server = await StartAsync();

        var put = await server.SendRawAsync("PUT", putPath, OrdersByCustomer);
        Assert.Equal(201, put.Status);
        Assert.Contains("\"name\":\"Orders/ByCustomer\"", put.Body, StringComparison.Ordinal);
        Assert.NotNull(Manager(server.Server.Services).GetStatus("Orders/ByCustomer"));

        var get = await server.SendRawAsync("GET", otherPath);
        Assert.Equal(200, get.Status);
        Assert.Contains("\"name\":\"Orders/ByCustomer\"", get.Body, StringComparison.Ordinal);
        Assert.Equal(200, (await server.SendRawAsync("PUT", otherPath, OrdersByCustomer)).Status);
        Assert.Equal(202, (await server.SendRawAsync("POST", otherPath + "/reset")).Status);
        Assert.Equal(204, (await server.SendRawAsync("DELETE", otherPath)).Status);
        Assert.Null(Manager(server.Server.Services).GetStatus("Orders/ByCustomer"));
        Assert.Equal(404, (await server.SendRawAsync("GET", putPath)).Status);
    }

    [Fact]
    public async Task A_bad_definition_is_a_400_that_lists_each_field_and_problem_and_stores_nothing()
    {
        await using var server = await StartAsync();

        using var response = await server.PutAsync("/indexes/Orders/ByCustomer", """
            {"collections":["Orders"],"fields":[
              {"name":"Customer","path":"customer","type":"keyword"},
              {"name":"Total","path":"total","type":"numbr"},
              {"name":"customer","path":"lines[.sku","type":"keyword"}]}
            """);

        var text = await response.Content.ReadAsStringAsync();
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(text);
        var root = problem.RootElement;
        Assert.Equal(IndexProblems.InvalidDefinitionType, root.GetProperty("type").GetString());
        var errors = root.GetProperty("errors").EnumerateArray()
            .ToDictionary(e => e.GetProperty("field").GetString()!, e => e.GetProperty("message").GetString()!);
        Assert.Equal(["fields[1].type", "fields[2].name", "fields[2].path"], errors.Keys.Order(StringComparer.Ordinal));
        Assert.Contains("unknown type 'numbr'", errors["fields[1].type"], StringComparison.Ordinal);
        Assert.Contains("same name as fields[0]", errors["fields[2].name"], StringComparison.Ordinal);
        Assert.Contains("malformed path 'lines[.sku'", errors["fields[2].path"], StringComparison.Ordinal);
        var detail = root.GetProperty("detail").GetString()!;
        Assert.Contains("'Orders/ByCustomer' has 3 problems; nothing was stored", detail, StringComparison.Ordinal);
        Assert.Contains("fields[1].type: field 'Total' has unknown type 'numbr'", detail, StringComparison.Ordinal);

        Assert.Empty(Manager(server.Server.Services).GetStatuses());
        using var get = await server.Client.GetAsync(Relative("/indexes/Orders/ByCustomer"));
        await ReadProblemAsync(get, HttpStatusCode.NotFound);
    }

    [Theory]
    [InlineData("/indexes/Orders", """{"name":"Other","collections":["Orders"],"fields":[{"name":"C","path":"c","type":"keyword"}]}""", "the body names index 'Other' but the URL names 'Orders'")]
    [InlineData("/indexes/Orders", "{\"collections\":[\"Orders\"]", "malformed JSON")]
    [InlineData("/indexes/Orders", "", "malformed JSON")]
    [InlineData("/indexes/Orders", """{"colections":["Orders"],"fields":[]}""", "unknown member")]
    [InlineData("/indexes/Bad%20Name", OrdersByCustomer, "index name 'Bad Name' has ' ' at 3")]
    [InlineData("/indexes/Orders//ByCustomer", OrdersByCustomer, "empty part between '/'")]
    [InlineData("/indexes/x%252Fy", OrdersByCustomer, "index name 'x%2Fy' has '%' at 1")]
    [InlineData("/indexes/", OrdersByCustomer, "The parameter 'name' is required")]
    public async Task A_bad_body_or_name_is_a_400_naming_the_problem(string path, string body, string expected)
    {
        await using var server = await StartAsync();

        var response = await server.SendRawAsync("PUT", path, body);

        Assert.Equal(400, response.Status);
        Assert.Contains(expected, response.Body, StringComparison.Ordinal);
        Assert.Empty(Manager(server.Server.Services).GetStatuses());
    }

    [Fact]
    public async Task A_body_that_is_not_json_is_a_415()
    {
        await using var server = await StartAsync();
        using var request = new HttpRequestMessage(HttpMethod.Put, Relative("/indexes/Orders")) { Content = new StringContent(OrdersByCustomer) };

        using var response = await server.Client.SendAsync(request);

        Assert.Contains("send application/json", await ReadProblemAsync(response, HttpStatusCode.UnsupportedMediaType), StringComparison.Ordinal);
        Assert.Empty(Manager(server.Server.Services).GetStatuses());
    }

    [Fact]
    public async Task Unknown_indexes_are_404_for_get_delete_and_reset_and_a_post_without_reset_is_404()
    {
        await using var server = await StartAsync();

        using var get = await server.Client.GetAsync(Relative("/indexes/Nope/Nothing"));
        Assert.Contains("no index named 'Nope/Nothing'", await ReadProblemAsync(get, HttpStatusCode.NotFound), StringComparison.Ordinal);
        using var delete = await server.Client.DeleteAsync(Relative("/indexes/Nope"));
        await ReadProblemAsync(delete, HttpStatusCode.NotFound);
        using var reset = await server.Client.PostAsync(Relative("/indexes/Nope/reset"), null);
        Assert.Contains("no index named 'Nope'", await ReadProblemAsync(reset, HttpStatusCode.NotFound), StringComparison.Ordinal);
        using var post = await server.Client.PostAsync(Relative("/indexes/Nope"), null);
        Assert.Contains("POST /indexes/{name}/reset", await ReadProblemAsync(post, HttpStatusCode.NotFound), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_shows_the_definition_state_progress_and_per_field_counts_and_the_list_shows_staleness()
    {
        await using var server = await StartAsync();
        using (var put = await server.PutAsync("/indexes/Orders/ByCustomer", OrdersByCustomer))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        var written = await server.Store.WriteAsync(new WriteBatch()
            .Put("orders/1", "Orders", """{"customer":"Ada","total":42.5}""")
            .Put("orders/2", "Orders", """{"customer":"ada","total":"seven"}""")
            .Put("orders/3", "Orders", """{"total":1}""")
            .Put("users/1", "Users", """{"customer":"Ada"}"""));

        var index = await WaitUntilCaughtUpAsync(server.Client, "Orders/ByCustomer", written.LastEtag - 1);

        Assert.Equal("indexing", index.GetProperty("state").GetString());
        Assert.Equal(JsonValueKind.Null, index.GetProperty("error").ValueKind);
        Assert.Equal(3, index.GetProperty("entries").GetInt64());
        // The feed is read past other collections' changes too, so the index may stand beyond its collections' last etag.
        Assert.True(index.GetProperty("lastIndexedEtag").GetInt64() >= written.LastEtag - 1);
        Assert.Equal(written.LastEtag - 1, index.GetProperty("collectionsLastEtag").GetInt64());
        var definition = index.GetProperty("definition");
        Assert.Equal("Orders/ByCustomer", definition.GetProperty("name").GetString());
        Assert.Equal(["Orders"], definition.GetProperty("collections").EnumerateArray().Select(c => c.GetString()));
        Assert.Equal("number", definition.GetProperty("fields")[1].GetProperty("type").GetString());
        var fields = index.GetProperty("fields").EnumerateArray().ToDictionary(f => f.GetProperty("name").GetString()!);
        Assert.Equal(0, fields["Customer"].GetProperty("wrongType").GetInt64());
        Assert.Equal(1, fields["Customer"].GetProperty("nulls").GetInt64());
        Assert.Equal(1, fields["Total"].GetProperty("wrongType").GetInt64());
        Assert.True(index.GetProperty("batches").GetProperty("batchesClosed").GetInt64() >= 1);
        Assert.Equal(2, LookupCount(Manager(server.Server.Services), "Orders/ByCustomer", 0, "ada"u8));

        var list = await server.GetJsonAsync("/indexes");
        var item = Assert.Single(list.GetProperty("items").EnumerateArray());
        Assert.Equal("Orders/ByCustomer", item.GetProperty("name").GetString());
        Assert.Equal("indexing", item.GetProperty("state").GetString());
        Assert.False(item.GetProperty("stale").GetBoolean());
        Assert.Equal(3, item.GetProperty("entries").GetInt64());

        var stats = await server.GetJsonAsync("/stats");
        Assert.Equal("Orders/ByCustomer", Assert.Single(stats.GetProperty("indexes").EnumerateArray()).GetProperty("name").GetString());
    }

    [Fact]
    public async Task Reset_rebuilds_from_the_start_and_answers_202()
    {
        await using var server = await StartAsync();
        using (var put = await server.PutAsync("/indexes/Orders", OrdersByCustomer))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        var written = await server.Store.WriteAsync(new WriteBatch().Put("o/1", "Orders", """{"customer":"Ada"}""").Put("o/2", "Orders", """{"customer":"Lin"}"""));
        await WaitUntilCaughtUpAsync(server.Client, "Orders", written.LastEtag);

        using var reset = await server.Client.PostAsync(Relative("/indexes/Orders/reset"), null);
        Assert.Equal("rebuilding", (await ReadJsonAsync(reset, HttpStatusCode.Accepted)).GetProperty("outcome").GetString());

        var index = await WaitUntilCaughtUpAsync(server.Client, "Orders", written.LastEtag);
        Assert.Equal(2, index.GetProperty("entries").GetInt64());
        Assert.Equal(1, LookupCount(Manager(server.Server.Services), "Orders", 0, "lin"u8));
    }

    [Fact]
    public async Task With_an_api_key_the_index_endpoints_require_it()
    {
        const string key = "0123456789abcdef-index-test-key";
        await using var server = await StartAsync($"--Ingest:ApiKey={key}");

        using var refused = await server.PutAsync("/indexes/Orders", OrdersByCustomer);
        await ReadProblemAsync(refused, HttpStatusCode.Unauthorized);
        using var refusedList = await server.Client.GetAsync(Relative("/indexes"));
        await ReadProblemAsync(refusedList, HttpStatusCode.Unauthorized);
        Assert.Empty(Manager(server.Server.Services).GetStatuses());

        server.Client.DefaultRequestHeaders.Add(ApiKeyMiddleware.HeaderName, key);
        using var allowed = await server.PutAsync("/indexes/Orders", OrdersByCustomer);
        Assert.Equal(HttpStatusCode.Created, allowed.StatusCode);
    }
}
