using System.Net;
using Ingest.Documents;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Operations;

public sealed class StatsAndHealthEndpointsTests
{
    [Fact]
    public async Task Stats_report_the_store_its_collections_sources_and_dead_letters()
    {
        await using var server = await StartAsync();
        await server.Store.WriteAsync(new WriteBatch()
            .Put("o/1", "Orders", "{}").Put("o/2", "Orders", "{\"a\":1}").Put("u/1", "Users", "{}")
            .AddDeadLetter("x"u8, new SourcePosition("s/q", 0, 3), "not JSON"));

        var stats = await server.GetJsonAsync("/stats");

        var store = stats.GetProperty("store");
        Assert.Equal(3, store.GetProperty("lastEtag").GetInt64());
        Assert.Equal(3, store.GetProperty("documents").GetInt64());
        Assert.Equal(11, store.GetProperty("documentBytes").GetInt64());
        Assert.True(store.GetProperty("commits").GetInt64() >= 1);
        Assert.True(store.GetProperty("journalSyncs").GetInt64() >= 1);
        Assert.True(store.GetProperty("storageBytes").GetInt64() > 0);
        var collections = stats.GetProperty("collections").EnumerateArray()
            .ToDictionary(c => c.GetProperty("name").GetString()!, c => c.GetProperty("count").GetInt64());
        Assert.Equal(new Dictionary<string, long> { ["Orders"] = 2, ["Users"] = 1 }, collections);
        Assert.Equal(0, stats.GetProperty("sources").GetArrayLength());
        Assert.Equal(1, stats.GetProperty("deadLetters").GetInt64());
    }

    [Fact]
    public async Task Stats_report_the_bytes_on_disk_of_the_store_and_each_index_and_the_free_space()
    {
        await using var server = await StartAsync();
        using (var created = await server.PutAsync("/indexes/Orders", Indexes.IndexTestKit.OrdersByCustomer))
        {
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        }

        var result = await server.Store.WriteAsync(new WriteBatch().Put("o/1", "Orders", "{\"customer\":\"acme\",\"total\":3}"));
        await Indexes.IndexTestKit.WaitUntilCaughtUpAsync(server.Client, "Orders", result.LastEtag);

        var stats = await server.GetJsonAsync("/stats");

        var store = stats.GetProperty("store");
        var disk = store.GetProperty("disk");
        var storeFiles = Directory.GetFiles(server.Store.Directory).Where(f => Path.GetFileName(f) == "data.ingest" || Path.GetFileName(f).StartsWith("journal.", StringComparison.Ordinal)).Sum(f => new FileInfo(f).Length);
        Assert.Equal(storeFiles, disk.GetProperty("dataFileBytes").GetInt64() + disk.GetProperty("journalBytes").GetInt64());
        Assert.Equal(storeFiles, disk.GetProperty("totalBytes").GetInt64());
        Assert.True(disk.GetProperty("journalBytes").GetInt64() is > 0 and <= 1024 * 1024, disk.ToString());
        Assert.True(disk.GetProperty("freePageBytes").GetInt64() >= 0);
        Assert.True(store.GetProperty("fileSystemFreeBytes").GetInt64() > 0);

        var index = Assert.Single(stats.GetProperty("indexes").EnumerateArray());
        var indexDisk = index.GetProperty("disk");
        Assert.True(indexDisk.GetProperty("dataFileBytes").GetInt64() > 0, indexDisk.ToString());
        Assert.True(indexDisk.GetProperty("totalBytes").GetInt64() < 1024 * 1024, $"a one-document index takes {indexDisk}");
        var collection = Assert.Single(stats.GetProperty("collections").EnumerateArray());
        Assert.Equal(29, collection.GetProperty("bodyBytes").GetInt64());
    }

    [Fact]
    public async Task Health_with_the_store_open_and_no_sources_is_healthy()
    {
        await using var server = await StartAsync();

        var health = await server.GetJsonAsync("/health");

        Assert.Equal("healthy", health.GetProperty("status").GetString());
        Assert.Equal("open", health.GetProperty("store").GetString());
        Assert.Equal(0, health.GetProperty("sources").GetArrayLength());
    }

    [Fact]
    public async Task Health_is_503_unhealthy_once_the_store_is_closed_while_alive_still_answers()
    {
        await using var server = await StartAsync();

        server.Store.Dispose();

        var health = await server.GetJsonAsync("/health", HttpStatusCode.ServiceUnavailable);
        Assert.Equal("unhealthy", health.GetProperty("status").GetString());
        Assert.Equal("closed", health.GetProperty("store").GetString());
        Assert.Equal("alive", await server.Client.GetStringAsync(Relative("/alive")));
    }

    [Fact]
    public async Task With_an_api_key_docs_stats_and_dead_letters_require_it()
    {
        const string key = "0123456789abcdef-api-test-key";
        await using var server = await StartAsync($"--Ingest:ApiKey={key}");

        foreach (var path in new[] { "/docs?collection=C", "/docs/a", "/stats", "/dead-letters" })
        {
            using var refused = await server.Client.GetAsync(Relative(path));
            Assert.Contains(ApiKeyMiddleware.HeaderName, await ReadProblemAsync(refused, HttpStatusCode.Unauthorized), StringComparison.Ordinal);
        }

        using var put = new HttpRequestMessage(HttpMethod.Put, Relative("/docs/a?collection=C")) { Content = Json("{}") };
        using var refusedPut = await server.Client.SendAsync(put);
        await ReadProblemAsync(refusedPut, HttpStatusCode.Unauthorized);
        Assert.Null(server.Store.Get("a"));

        server.Client.DefaultRequestHeaders.Add(ApiKeyMiddleware.HeaderName, key);
        await server.GetJsonAsync("/stats");
        await server.GetJsonAsync("/docs?collection=C");
        using var allowedPut = await server.PutAsync("/docs/a?collection=C", "{}");
        Assert.Equal(HttpStatusCode.Created, allowedPut.StatusCode);
    }
}
