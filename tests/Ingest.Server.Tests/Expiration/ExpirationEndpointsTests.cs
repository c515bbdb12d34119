using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Expiration;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Expiration;

public sealed class ExpirationEndpointsTests
{
    private const string Past = "2020-01-01T00:00:00Z";
    private const string Future = "2100-01-01T00:00:00Z";

    private static string Order(int total, string? expires) =>
        expires is null ? $"{{\"Total\":{total}}}" : $"{{\"Total\":{total},\"@metadata\":{{\"@expires\":\"{expires}\"}}}}";

    [Fact]
    public async Task Expired_documents_are_hidden_at_once_from_get_listing_and_queries_before_the_task_runs()
    {
        // An hour-long interval: the task runs once at start, before these documents exist, and not again in this test.
        await using var api = await StartAsync("--Ingest:Expiration:Interval=01:00:00");
        await WaitForFirstRunAsync(api);
        foreach (var (id, expires) in new[] { ("orders/1", Past), ("orders/2", Future), ("orders/3", (string?)null) })
        {
            using var put = await api.PutAsync($"/docs/{id}?collection=Orders", Order(id[^1] - '0', expires));
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        using (var gone = await api.Client.GetAsync(Relative("/docs/orders/1")))
        {
            Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
        }

        var listing = await api.GetJsonAsync("/docs?collection=Orders");
        Assert.Equal(["orders/2", "orders/3"], listing.GetProperty("items").EnumerateArray().Select(d => d.GetProperty("id").GetString()).Order());
        var scanned = await api.GetJsonAsync("/queries?q=" + Uri.EscapeDataString("from Orders"));
        Assert.Equal([2, 3], Results(scanned).Select(r => r.GetProperty("document").GetProperty("Total").GetInt32()).Order());
        var indexed = await api.GetJsonAsync("/queries?q=" + Uri.EscapeDataString("from Orders where Total >= 0") + "&waitForNonStale=30s");
        Assert.Equal([2, 3], Results(indexed).Select(r => r.GetProperty("document").GetProperty("Total").GetInt32()).Order());

        // Still stored, and due: the task has not run since.
        Assert.Equal(3, api.Store.GetStats().DocumentCount);
        var expiration = (await api.GetJsonAsync("/stats")).GetProperty("expiration");
        Assert.Equal(1, expiration.GetProperty("dueNow").GetInt64());
        Assert.Equal(2, expiration.GetProperty("expiring").GetInt64());
    }

    [Fact]
    public async Task A_bad_expiry_is_a_400_naming_the_value()
    {
        await using var api = await StartAsync();

        using var put = await api.PutAsync("/docs/orders/1?collection=Orders", "{\"@metadata\":{\"@expires\":\"next week\"}}");

        Assert.Equal(HttpStatusCode.BadRequest, put.StatusCode);
        var problem = await Detail(put);
        Assert.Contains("@metadata.@expires is the string \"next week\"", problem, StringComparison.Ordinal);
        Assert.Null(api.Store.Get("orders/1"));
    }

    [Fact]
    public async Task A_rule_set_over_http_applies_to_stored_documents_persists_and_a_delete_removes_it()
    {
        using var directory = new TestDirectory();
        await using (var server = await RunningServer.StartAsync(directory.Path, "--Ingest:Expiration:Collections:Logs:Keep=7.00:00:00"))
        {
            var api = server.Client;
            using (await api.PutAsync(Relative("/docs/orders/old?collection=Orders"), Json("{\"OrderedAt\":\"2001-01-01T00:00:00Z\"}")))
            using (await api.PutAsync(Relative("/docs/orders/new?collection=Orders"), Json("{\"OrderedAt\":\"2099-01-01T00:00:00Z\"}")))
            {
            }

            using var set = await api.PutAsync(Relative("/expiration/collections/Orders"), Json("{\"keep\":\"30.00:00:00\",\"field\":\"OrderedAt\"}"));
            Assert.Equal(HttpStatusCode.OK, set.StatusCode);
            var rules = JsonDocument.Parse(await set.Content.ReadAsStringAsync()).RootElement.GetProperty("rules");
            Assert.Equal(
                ["Logs 7.00:00:00 configuration", "Orders 30.00:00:00 http"],
                rules.EnumerateArray().Select(r => $"{r.GetProperty("name").GetString()} {r.GetProperty("keep").GetString()} {r.GetProperty("source").GetString()}").Order());

            // The task re-stamps what is stored (it runs at once on a change) and deletes what is due.
            await WaitAsync(server, () => server.Services.GetRequiredService<DocumentStore>().GetStats().DocumentCount == 1, "orders/old deleted");
            using (var old = await api.GetAsync(Relative("/docs/orders/old")))
            {
                Assert.Equal(HttpStatusCode.NotFound, old.StatusCode);
            }

            var stats = (await GetJsonAsync(api, "/stats")).GetProperty("expiration");
            Assert.Equal(1, stats.GetProperty("documentsExpired").GetInt64());
            Assert.Equal(1, stats.GetProperty("collections").EnumerateArray().Single(c => c.GetProperty("name").GetString() == "Orders").GetProperty("documentsExpired").GetInt64());
        }

        await using (var server = await RunningServer.StartAsync(directory.Path, "--Ingest:Expiration:Collections:Logs:Keep=7.00:00:00"))
        {
            var api = server.Client;
            var rules = (await GetJsonAsync(api, "/expiration")).GetProperty("rules");
            Assert.Contains(rules.EnumerateArray(), r => r.GetProperty("name").GetString() == "Orders" && r.GetProperty("field").GetString() == "OrderedAt");

            using (var removed = await api.DeleteAsync(Relative("/expiration/collections/orders")))
            {
                Assert.Equal(HttpStatusCode.NoContent, removed.StatusCode);
            }

            using (var removedConfigured = await api.DeleteAsync(Relative("/expiration/collections/Logs")))
            {
                Assert.Equal(HttpStatusCode.NoContent, removedConfigured.StatusCode);
            }

            using (var again = await api.DeleteAsync(Relative("/expiration/collections/Logs")))
            {
                Assert.Equal(HttpStatusCode.NotFound, again.StatusCode);
            }

            Assert.Empty((await GetJsonAsync(api, "/expiration")).GetProperty("rules").EnumerateArray());
            await WaitAsync(server, () => server.Services.GetRequiredService<DocumentStore>().Get("orders/new")?.ExpiresAt is null, "orders/new's expiry taken off");
        }
    }

    [Theory]
    [InlineData("{\"field\":\"OrderedAt\"}", "keep is required")]
    [InlineData("{\"keep\":\"soon\"}", "keep \"soon\" is not a TimeSpan")]
    [InlineData("{\"keep\":\"-1.00:00:00\"}", "keep must be positive")]
    [InlineData("{\"keep\":\"1.00:00:00\",\"field\":\"a.b\"}", "must name a top-level property")]
    [InlineData("{\"keep\":\"1.00:00:00\",\"days\":3}", "unknown property 'days'")]
    [InlineData("[1]", "the body is a JSON Array")]
    public async Task A_bad_rule_is_a_400_that_says_what_to_fix(string body, string expected)
    {
        await using var api = await StartAsync();

        using var put = await api.PutAsync("/expiration/collections/Orders", body);

        Assert.Equal(HttpStatusCode.BadRequest, put.StatusCode);
        Assert.Contains(expected, await Detail(put), StringComparison.Ordinal);
        Assert.Empty((await api.GetJsonAsync("/expiration")).GetProperty("rules").EnumerateArray());
    }

    [Theory]
    [InlineData("--Ingest:Expiration:BatchSize=0", "Ingest:Expiration:BatchSize must be between 1 and 1000000")]
    [InlineData("--Ingest:Expiration:Interval=00:00:00", "Ingest:Expiration:Interval must be > 0")]
    [InlineData("--Ingest:Expiration:Collections:Orders:Field=OrderedAt", "Ingest:Expiration:Collections:Orders: keep is required")]
    [InlineData("--Ingest:Expiration:Collections:Orders:Keep=-00:01:00", "Ingest:Expiration:Collections:Orders: keep must be positive")]
    [InlineData("--Ingest:Expiration:DeadLetters:Keep=00:00:00", "Ingest:Expiration:DeadLetters:Keep must be > 0")]
    public async Task A_bad_expiration_setting_stops_start_up_and_names_the_setting(string argument, string expected)
    {
        using var directory = new TestDirectory();

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(directory.Path, argument));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Dead_letters_past_their_retention_are_deleted_by_the_task()
    {
        using var directory = new TestDirectory();
        using (var store = DocumentStore.Open(Path.Combine(directory.Path, Ingest.Server.Hosting.StoreRegistration.StoreFolder)))
        {
            store.Write(new WriteBatch().AddDeadLetter("raw"u8, new SourcePosition("s", 0, 1), "bad"));
        }

        await using var server = await RunningServer.StartAsync(directory.Path, "--Ingest:Expiration:DeadLetters:Keep=00:00:00.001");

        // The run is counted after its deletes: wait for both, or the metrics may be read in between.
        await WaitAsync(
            server, () => server.Services.GetRequiredService<ExpirationProgress>() is { DeadLetters: 1, Runs: > 0 }, "the dead letter deleted and its run finished");
        Assert.Equal(0, server.Services.GetRequiredService<DocumentStore>().GetStats().DeadLetterCount);
        Assert.Equal(1, (await GetJsonAsync(server.Client, "/stats")).GetProperty("expiration").GetProperty("deadLettersExpired").GetInt64());
        var metrics = await server.Client.GetStringAsync(Relative("/metrics"));
        Assert.Contains("ingest_expiration_dead_letters_total{otel_scope_name=\"Ingest\"} 1", metrics, StringComparison.Ordinal);
        Assert.Contains("ingest_expiration_documents_total", metrics, StringComparison.Ordinal);
        Assert.Contains("ingest_expiration_runs_total", metrics, StringComparison.Ordinal);
    }

    private static async Task<string> Detail(HttpResponseMessage response) =>
        JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement.GetProperty("detail").GetString()!;

    private static async Task WaitForFirstRunAsync(ApiTestServer api) =>
        await WaitAsync(api.Server, () => api.Server.Services.GetRequiredService<ExpirationProgress>().Runs > 0, "the first expiration run");

    private static async Task WaitAsync(RunningServer server, Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(60);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                var progress = server.Services.GetRequiredService<ExpirationProgress>();
                throw new TimeoutException($"waited 60 s for {what}; expiration runs {progress.Runs}, last error: {progress.LastError}");
            }

            await Task.Delay(20);
        }
    }

    private static async Task<JsonElement> GetJsonAsync(HttpClient client, string path)
    {
        using var response = await client.GetAsync(Relative(path));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement.Clone();
    }
}
