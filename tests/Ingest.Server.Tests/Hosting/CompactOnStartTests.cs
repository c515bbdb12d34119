using System.Net;
using Ingest.Documents;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Hosting;

/// <summary><c>Ingest:Storage:CompactOnStart</c>: a restart compacts the store and the indexes, which answer as before.</summary>
public sealed class CompactOnStartTests
{
    [Fact]
    public async Task A_restart_with_compaction_shrinks_the_store_and_keeps_its_documents_and_index()
    {
        using var directory = new TestDirectory();
        long before;
        var body = "{\"customer\":\"" + new string('c', 400) + "\",\"total\":1}";
        await using (var server = await RunningServer.StartAsync(directory.Path))
        {
            using (var created = await server.Client.PutAsync(new Uri("/indexes/Orders", UriKind.Relative), Http.ApiTestServer.Json(Indexes.IndexTestKit.OrdersByCustomer)))
            {
                Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            }

            var store = server.Services.GetRequiredService<DocumentStore>();
            var batch = new WriteBatch();
            for (var i = 0; i < 4_000; i++)
            {
                batch.Put($"orders/{i}", "Orders", body.Replace("\"total\":1", $"\"total\":{i}", StringComparison.Ordinal));
            }

            await store.WriteAsync(batch);
            var deletes = new WriteBatch();
            for (var i = 0; i < 4_000; i += 2)
            {
                deletes.Delete($"orders/{i}");
            }

            var last = await store.WriteAsync(deletes);
            await Indexes.IndexTestKit.WaitUntilCaughtUpAsync(server.Client, "Orders", last.LastEtag);
        }

        before = DataFileBytes(directory.Path); // after the stop, which writes every committed page into the data files

        await using (var server = await RunningServer.StartAsync(directory.Path, "--Ingest:Storage:CompactOnStart=true"))
        {
            Assert.True(DataFileBytes(directory.Path) < before * 0.75, $"data files: {before} bytes before, {DataFileBytes(directory.Path)} after");
            var store = server.Services.GetRequiredService<DocumentStore>();
            Assert.Equal(2_000, store.GetStats().DocumentCount);
            Assert.NotNull(store.Get("orders/3"));
            Assert.Null(store.Get("orders/2"));
            var stats = await server.Client.GetStringAsync(new Uri("/indexes/Orders", UriKind.Relative));
            Assert.Contains("\"entries\":2000", stats, StringComparison.Ordinal);
        }
    }

    /// <summary>The data files of the store and every index under the data directory.</summary>
    private static long DataFileBytes(string dataDirectory) =>
        Directory.GetFiles(dataDirectory, "data.ingest", SearchOption.AllDirectories).Sum(f => new FileInfo(f).Length);
}
