using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Documents.Records;
using Ingest.Storage;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>What clients and /health see when the store's disk is full or a page of it is damaged.</summary>
public sealed class StoreFailureEndpointsTests
{
    private static async Task<JsonElement> WaitForHealthAsync(HttpClient client, HttpStatusCode expected)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (true)
        {
            using var response = await client.GetAsync(Relative("/health"));
            if (response.StatusCode == expected || DateTime.UtcNow > deadline)
            {
                return await ReadJsonAsync(response, expected);
            }

            await Task.Delay(50);
        }
    }

    private static async Task<JsonElement> ReadProblemJsonAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        await ReadProblemAsync(response, expected);
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.Clone();
    }

    [Fact]
    public async Task A_put_on_a_full_disk_answers_507_health_turns_503_and_puts_work_again_without_a_restart()
    {
        await using var server = await StartAsync();
        using (var first = await server.PutAsync("/docs/a?collection=C", "{\"n\":1}"))
        {
            Assert.Equal(HttpStatusCode.Created, first.StatusCode);
        }

        server.Store.Environment.Faults.DiskFull = true;
        using (var refused = await server.PutAsync("/docs/b?collection=C", "{\"n\":2}"))
        {
            var problem = await ReadProblemJsonAsync(refused, HttpStatusCode.InsufficientStorage);
            Assert.Equal("urn:ingest:problem:disk-full", problem.GetProperty("type").GetString());
            Assert.Contains("full", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        var health = await server.GetJsonAsync("/health", HttpStatusCode.ServiceUnavailable);
        Assert.Equal("disk-full", health.GetProperty("store").GetString());
        Assert.Contains("full", health.GetProperty("storeError").GetString(), StringComparison.Ordinal);

        server.Store.Environment.Faults.DiskFull = false;
        health = await WaitForHealthAsync(server.Client, HttpStatusCode.OK);
        Assert.Equal("open", health.GetProperty("store").GetString());

        using (var again = await server.PutAsync("/docs/b?collection=C", "{\"n\":2}"))
        {
            Assert.Equal(HttpStatusCode.Created, again.StatusCode);
        }

        Assert.Equal("{\"n\":2}", await server.Client.GetStringAsync(Relative("/docs/b")));
        Assert.Equal(2, server.Store.GetStats().DocumentCount);
    }

    [Fact]
    public async Task A_document_on_a_damaged_page_answers_the_damaged_store_problem_and_health_turns_503()
    {
        using var testDirectory = new TestDirectory();
        var directory = testDirectory.Path;
        long page;
        await using (var server = await RunningServer.StartAsync(directory))
        {
            var store = server.Services.GetRequiredService<DocumentStore>();
            await store.WriteAsync(new WriteBatch().Put("a", "C", "{\"n\":1}").Put("b", "C", "{\"n\":2}"));
            using var read = store.Environment.BeginRead();
            page = read.OpenTree(TreeNames.ByEtag)!.RootPage; // two documents: one leaf, the root
        }

        var dataFile = Path.Combine(directory, "store", "data.ingest");
        using (var file = new FileStream(dataFile, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = (page * 8192) + 8000;
            var b = file.ReadByte();
            file.Position = (page * 8192) + 8000;
            file.WriteByte((byte)(b ^ 0x5A));
        }

        await using (var server = await RunningServer.StartAsync(directory))
        {
            await WaitForHealthAsync(server.Client, HttpStatusCode.OK);

            using var response = await server.Client.GetAsync(Relative("/docs/a"));

            var problem = await ReadProblemJsonAsync(response, HttpStatusCode.InternalServerError);
            Assert.Equal("urn:ingest:problem:store-damaged", problem.GetProperty("type").GetString());
            Assert.Equal(page, problem.GetProperty("page").GetInt64());
            Assert.Equal(page * 8192, problem.GetProperty("offset").GetInt64());
            Assert.Equal(dataFile, problem.GetProperty("file").GetString());
            Assert.Contains($"Page {page}", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);

            using var healthResponse = await server.Client.GetAsync(Relative("/health"));
            var health = await ReadJsonAsync(healthResponse, HttpStatusCode.ServiceUnavailable);
            Assert.Equal("damaged", health.GetProperty("store").GetString());
            Assert.Contains(dataFile, health.GetProperty("storeError").GetString(), StringComparison.Ordinal);

            using var verify = await server.Client.PostAsync(Relative("/admin/verify"), null);
            var report = await ReadJsonAsync(verify, HttpStatusCode.OK);
            Assert.False(report.GetProperty("clean").GetBoolean());
            var damaged = Assert.Single(report.GetProperty("damaged").EnumerateArray());
            Assert.Equal(page, damaged.GetProperty("page").GetInt64());
            Assert.Equal(TreeNames.ByEtag, damaged.GetProperty("tree").GetString());
        }
    }

    [Fact]
    public async Task Verify_on_a_sound_store_reports_it_clean_and_health_stays_200()
    {
        await using var server = await StartAsync();
        await server.Store.WriteAsync(new WriteBatch().Put("a", "C", "{}").Put("b", "D", "{}"));

        using var verify = await server.Client.PostAsync(Relative("/admin/verify"), null);

        var report = await ReadJsonAsync(verify, HttpStatusCode.OK);
        Assert.True(report.GetProperty("clean").GetBoolean());
        Assert.True(report.GetProperty("pagesChecked").GetInt64() > 5);
        Assert.Equal(0, report.GetProperty("damaged").GetArrayLength());
        await server.GetJsonAsync("/health");
    }
}
