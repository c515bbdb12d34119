using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Storage;
using Ingest.Storage.Backup;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Indexes.IndexTestKit;
using Ingest.Server.Operations;

namespace Ingest.Server.Tests.Operations;

/// <summary><c>POST /admin/backup</c> on a server taking writes, restored and started again.</summary>
public sealed class BackupEndpointsTests : IDisposable
{
    private const string IndexName = "Orders/ByCustomer";
    private const int Customers = 5;
    private readonly TestDirectory _root = new();

    private string Source => Path.Combine(_root.Path, "source");

    private string Restored => Path.Combine(_root.Path, "restored");

    public void Dispose() => _root.Dispose();

    [Fact]
    public async Task A_backup_taken_under_live_writes_restores_to_one_moment_of_the_store_with_its_index_and_files()
    {
        Directory.CreateDirectory(Path.Combine(Source, "grafana"));
        await File.WriteAllTextAsync(Path.Combine(Source, "grafana", "saved-queries.json"), "[]");
        var backupFile = Path.Combine(_root.Path, "live.backup");
        long backupTransaction;
        await using (var server = await RunningServer.StartAsync(Source))
        {
            using (var created = await server.Client.PutAsync(Relative("/indexes/" + IndexName), Json(OrdersByCustomer)))
            {
                Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            }

            // One writer applies the operations in order, so every consistent snapshot is the state after some prefix of them.
            using var stop = new CancellationTokenSource();
            var applied = 0;
            var writer = Task.Run(async () =>
            {
                for (var op = 0; !stop.IsCancellationRequested; op++)
                {
                    using var response = await Apply(server.Client, op);
                    Assert.True(response.IsSuccessStatusCode, $"operation {op}: {response.StatusCode}");
                    Volatile.Write(ref applied, op + 1);
                }
            });

            while (Volatile.Read(ref applied) < 600)
            {
                await Task.Delay(20);
            }

            var before = Volatile.Read(ref applied);
            using (var response = await server.Client.PostAsync(Relative("/admin/backup"), null))
            {
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
                Assert.Equal(BackupEndpoints.ContentType, response.Content.Headers.ContentType?.MediaType);
                backupTransaction = long.Parse(response.Headers.GetValues(BackupEndpoints.TransactionHeader).Single(), System.Globalization.CultureInfo.InvariantCulture);
                await using var file = File.Create(backupFile);
                await response.Content.CopyToAsync(file);
            }

            var target = Volatile.Read(ref applied) + 100;
            while (Volatile.Read(ref applied) < target && !writer.IsCompleted)
            {
                await Task.Delay(20);
            }

            await stop.CancelAsync();
            await writer;
            Assert.True(Volatile.Read(ref applied) > before + 100, "writes went on during and after the backup");
        }

        IReadOnlyList<BackupEntry> entries;
        await using (var file = File.OpenRead(backupFile))
        {
            entries = BackupRestorer.Restore(file, backupFile, Restored);
        }

        Assert.Equal(backupTransaction, entries.Single(e => e.Path == "store").TransactionId);
        Assert.Contains(entries, e => e.IsEnvironment && e.Path.StartsWith("indexes/", StringComparison.Ordinal));
        Assert.Contains(entries, e => e.Path == "indexes/catalog.json");
        Assert.Contains(entries, e => e.Path == "grafana/saved-queries.json");
        Assert.DoesNotContain(entries, e => e.Path.EndsWith(".lock", StringComparison.Ordinal));

        await using (var server = await RunningServer.StartAsync(Restored))
        {
            // The documents are the state after some prefix of the operations: find it from the highest id present.
            var store = server.Services.GetRequiredService<DocumentStore>();
            var present = Documents(store);
            var highest = present.Keys.Max();
            var expected = Model(highest + 1);
            if (!SameContent(expected, present) && highest % 7 == 6)
            {
                expected.Remove(highest - 3); // the delete that follows that put was in the snapshot too
            }

            Assert.True(SameContent(expected, present), $"the restored documents are not the state after any prefix of the writes (highest id {highest}, {present.Count} documents)");

            // The restored index resumes from where it was and agrees with the restored documents.
            await WaitUntilCaughtUpAsync(server.Client, IndexName, store.LastEtag);
            var manager = Manager(server.Services);
            for (var c = 0; c < Customers; c++)
            {
                var count = expected.Values.Count(v => v.Customer == $"c{c}");
                Assert.Equal(count, LookupCount(manager, IndexName, 0, Encoding.UTF8.GetBytes($"c{c}")));
            }

            Assert.Equal("[]", await File.ReadAllTextAsync(Path.Combine(Restored, "grafana", "saved-queries.json")));
        }
    }

    [Fact]
    public async Task A_backup_answers_401_without_the_api_key()
    {
        await using var server = await ApiTestServer.StartAsync("--Ingest:ApiKey=secret-key-0123456789");

        using var response = await server.Client.PostAsync(Relative("/admin/backup"), null);

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
    }

    /// <summary>Operation n puts order n; every seventh also deletes the order put three operations before.</summary>
    private static async Task<HttpResponseMessage> Apply(HttpClient client, int op)
    {
        var put = await client.PutAsync(Relative($"/docs/orders/{op}?collection=Orders"), Json(Body(op)));
        if (op % 7 != 6 || !put.IsSuccessStatusCode)
        {
            return put;
        }

        put.Dispose();
        return await client.DeleteAsync(Relative($"/docs/orders/{op - 3}"));
    }

    private static string Body(int n) => $$"""{"n":{{n}},"customer":"c{{n % Customers}}","total":{{n * 3}},"pad":"{{new string('x', 200 + (n % 50))}}"}""";

    private static Dictionary<int, (string Customer, string Body)> Model(int puts)
    {
        var model = new Dictionary<int, (string, string)>();
        for (var op = 0; op < puts; op++)
        {
            model[op] = ($"c{op % Customers}", Body(op));
            if (op % 7 == 6 && op + 1 < puts)
            {
                model.Remove(op - 3);
            }
        }

        return model;
    }

    private static Dictionary<int, (string Customer, string Body)> Documents(DocumentStore store)
    {
        var documents = new Dictionary<int, (string, string)>();
        for (long after = 0; ;)
        {
            var page = store.GetCollectionPage("Orders", after, 500);
            if (page.Count == 0)
            {
                return documents;
            }

            foreach (var document in page)
            {
                var body = Encoding.UTF8.GetString(document.Body.Span);
                using var json = JsonDocument.Parse(body);
                documents[json.RootElement.GetProperty("n").GetInt32()] = (json.RootElement.GetProperty("customer").GetString()!, body);
                after = document.Etag;
            }
        }
    }

    private static bool SameContent(Dictionary<int, (string Customer, string Body)> expected, Dictionary<int, (string Customer, string Body)> actual) =>
        expected.Count == actual.Count && expected.All(e => actual.TryGetValue(e.Key, out var a) && a == e.Value);
}
