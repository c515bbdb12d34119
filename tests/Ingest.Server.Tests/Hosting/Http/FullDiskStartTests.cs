using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Queries;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>
/// A server restarted on a disk with less room than its next journal file needs, on a real small tmpfs: it opens
/// for reads, answers writes 507 naming the bytes it needs, says so in /health, and writes again once they are free.
/// Mounting needs root (or CAP_SYS_ADMIN), as CI has; elsewhere the test says so and does nothing (the same path is
/// covered through the storage engine's fault-injecting write layer in Ingest.Storage.Tests' DiskFullTests).
/// </summary>
public sealed class FullDiskStartTests(ITestOutputHelper output)
{
    // A store's first journal file (Ingest.Storage's InitialJournalFileSize): what a store with none needs to write.
    private const long FirstJournalFileBytes = 64 * 1024;

    [Fact]
    public async Task A_server_started_on_a_full_disk_reads_refuses_writes_with_the_bytes_needed_and_writes_once_they_are_free()
    {
        using var disk = SmallTmpfs.TryMount(megabytes: 64, output);
        if (disk is null)
        {
            return;
        }

        var data = Path.Combine(disk.Path, "data");
        await using (var first = await RunningServer.StartAsync(data))
        {
            for (var i = 0; i < 20; i++)
            {
                using var put = await first.Client.PutAsync(Relative($"/docs/orders/{i}?collection=Orders"), Json($$"""{"Customer":"c{{i % 3}}","Total":{{i}}}"""));
                Assert.Equal(HttpStatusCode.Created, put.StatusCode);
            }

            await QueryTestKit.QueryAsync(first.Client, "from Orders where Customer = 'c1'");
        }

        // Every record is in the data files after a clean stop, so the journals are not needed: without them, the
        // next start must make a new one, and the filler leaves less room than that.
        foreach (var journal in Directory.GetFiles(data, "journal.*", SearchOption.AllDirectories))
        {
            File.Delete(journal);
        }

        var filler = Path.Combine(disk.Path, "filler");
        disk.FillLeaving(filler, 16 * 1024);

        await using var server = await RunningServer.StartAsync(data);
        using (var read = await server.Client.GetAsync(Relative("/docs/orders/7")))
        {
            Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        }

        using (var refused = await server.Client.PutAsync(Relative("/docs/orders/new?collection=Orders"), Json("""{"Customer":"late"}""")))
        {
            var detail = await ReadProblemAsync(refused, HttpStatusCode.InsufficientStorage);
            Assert.Contains($"Writing needs 64.0 KiB free ({FirstJournalFileBytes} bytes)", detail, StringComparison.Ordinal);
            using var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync());
            Assert.Equal(FirstJournalFileBytes, problem.RootElement.GetProperty("bytesNeeded").GetInt64());
            Assert.True(problem.RootElement.GetProperty("bytesFree").GetInt64() < FirstJournalFileBytes);
        }

        using (var health = await server.Client.GetAsync(Relative("/health")))
        {
            var body = await ReadJsonAsync(health, HttpStatusCode.ServiceUnavailable);
            Assert.Equal("disk-full", body.GetProperty("store").GetString());
            Assert.Contains("Writing needs 64.0 KiB free", body.GetProperty("storeError").GetString(), StringComparison.Ordinal);
        }

        File.Delete(filler);
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            using var health = await server.Client.GetAsync(Relative("/health"));
            if (health.StatusCode == HttpStatusCode.OK)
            {
                break;
            }

            Assert.True(deadline.Elapsed < TimeSpan.FromSeconds(30), $"health stayed {health.StatusCode} after the space was freed: {await health.Content.ReadAsStringAsync()}");
            await Task.Delay(50);
        }

        using (var written = await server.Client.PutAsync(Relative("/docs/orders/new?collection=Orders"), Json("""{"Customer":"c1"}""")))
        {
            Assert.Equal(HttpStatusCode.Created, written.StatusCode);
        }

        // The index waited for room instead of stopping: it takes in the new document.
        var answer = await QueryTestKit.QueryAsync(server.Client, "from Orders where Customer = 'c1'");
        Assert.Equal("Auto/Orders/ByCustomer", answer.GetProperty("indexName").GetString());
        Assert.Contains("orders/new", QueryTestKit.Ids(answer));
        Assert.Equal(8, answer.GetProperty("totalResults").GetInt64());
    }

    private static StringContent Json(string body) => new(body, System.Text.Encoding.UTF8, "application/json");
}
