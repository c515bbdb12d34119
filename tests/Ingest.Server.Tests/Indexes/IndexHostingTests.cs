using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Server.Indexes;
using Ingest.Server.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Ingest.Query;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Indexes.IndexTestKit;

namespace Ingest.Server.Tests.Indexes;

/// <summary>Indexes across the server's life: declared in configuration, bad settings, restarts, side-by-side rebuilds, damage.</summary>
public sealed class IndexHostingTests : IDisposable
{
    private const int PageSize = 8192;
    private readonly TestDirectory _dataDirectory = new();

    public void Dispose() => _dataDirectory.Dispose();

    private static readonly string[] ConfiguredOrdersByCustomer =
    [
        "--Ingest:Indexes:0:Name=Orders/ByCustomer",
        "--Ingest:Indexes:0:Collections:0=Orders",
        "--Ingest:Indexes:0:Fields:0:Name=Customer",
        "--Ingest:Indexes:0:Fields:0:Path=customer",
        "--Ingest:Indexes:0:Fields:0:Type=keyword",
        "--Ingest:Indexes:0:Fields:1:Name=Total",
        "--Ingest:Indexes:0:Fields:1:Path=total",
        "--Ingest:Indexes:0:Fields:1:Type=Number",
    ];

    [Fact]
    public async Task An_index_declared_in_configuration_is_there_after_start_and_indexes()
    {
        await using var server = await RunningServer.StartAsync(_dataDirectory.Path, ConfiguredOrdersByCustomer);

        var status = Manager(server.Services).GetStatus("Orders/ByCustomer");
        Assert.NotNull(status);
        Assert.Equal(["Customer", "Total"], status.Definition.Fields.Select(f => f.Name));
        var written = await server.Services.GetRequiredService<DocumentStore>().WriteAsync(new WriteBatch()
            .Put("o/1", "Orders", """{"customer":"Ada","total":1}""").Put("o/2", "Orders", """{"customer":"Lin","total":2}"""));
        await WaitUntilCaughtUpAsync(server.Client, "Orders/ByCustomer", written.LastEtag);
        Assert.Equal(1, LookupCount(Manager(server.Services), "Orders/ByCustomer", 0, "ada"u8));
    }

    [Fact]
    public async Task A_declared_index_whose_definition_changed_is_rebuilt_at_the_next_start()
    {
        await using (var first = await RunningServer.StartAsync(_dataDirectory.Path, ConfiguredOrdersByCustomer))
        {
            Assert.NotNull(Manager(first.Services).GetStatus("Orders/ByCustomer"));
        }

        string[] changed = [.. ConfiguredOrdersByCustomer.Where(a => !a.Contains(":Fields:1:", StringComparison.Ordinal))];
        await using var second = await RunningServer.StartAsync(_dataDirectory.Path, changed);

        var index = await WaitUntilCaughtUpAsync(second.Client, "Orders/ByCustomer", 0);
        Assert.Single(index.GetProperty("definition").GetProperty("fields").EnumerateArray());
    }

    [Theory]
    [InlineData("--Ingest:Indexes:0:Fields:1:Type=numbr", "Ingest:Indexes:0:Fields:1:Type: field 'Total' has unknown type 'numbr'")]
    [InlineData("--Ingest:Indexes:0:Fields:1:Path=lines[.x", "Ingest:Indexes:0:Fields:1:Path: field 'Total' has a malformed path 'lines[.x'")]
    [InlineData("--Ingest:Indexes:0:Fields:1:Name=customer", "Ingest:Indexes:0:Fields:1:Name: field 'customer' has the same name as fields[0]")]
    [InlineData("--Ingest:Indexes:0:Name=Bad Name", "Ingest:Indexes:0:Name: index name 'Bad Name' has ' ' at 3")]
    [InlineData("--Ingest:Indexes:1:Name=Orders/ByCustomer", "Ingest:Indexes:1:Collections: at least one collection is required")]
    public async Task A_bad_declared_index_stops_start_up_naming_the_setting_and_the_problem(string badArgument, string expected)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(_dataDirectory.Path, [.. ConfiguredOrdersByCustomer, badArgument]));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_dataDirectory.Path, QueryEngine.IndexesFolder, "catalog.json")));
    }

    [Fact]
    public async Task The_same_index_declared_twice_stops_start_up()
    {
        string[] twice = [.. ConfiguredOrdersByCustomer, .. ConfiguredOrdersByCustomer.Select(a => a.Replace(":Indexes:0:", ":Indexes:1:", StringComparison.Ordinal))];

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(_dataDirectory.Path, twice));

        Assert.Contains("Ingest:Indexes:1:Name: index 'Orders/ByCustomer' is already declared by Ingest:Indexes:0", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--Ingest:Indexing:BatchMemoryBudgetBytes=1000", "Ingest:Indexing:BatchMemoryBudgetBytes must be at least 65536 (was 1000)")]
    [InlineData("--Ingest:Indexing:MaxBatchDuration=00:00:00", "Ingest:Indexing:MaxBatchDuration must be > 0")]
    [InlineData("--Ingest:Indexing:MaxBatchDocuments=0", "Ingest:Indexing:MaxBatchDocuments must be at least 1 when set (was 0)")]
    public async Task A_bad_indexing_setting_stops_start_up_and_names_it(string argument, string expected)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(_dataDirectory.Path, argument));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_index_defined_over_http_survives_a_restart_and_resumes_where_it_was()
    {
        long firstEtag;
        await using (var first = await RunningServer.StartAsync(_dataDirectory.Path))
        {
            using var put = await first.Client.PutAsync(Relative("/indexes/Orders/ByCustomer"), Json(OrdersByCustomer));
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
            var written = await first.Services.GetRequiredService<DocumentStore>().WriteAsync(new WriteBatch()
                .Put("o/1", "Orders", """{"customer":"Ada"}""").Put("o/2", "Orders", """{"customer":"Ada"}"""));
            firstEtag = (await WaitUntilCaughtUpAsync(first.Client, "Orders/ByCustomer", written.LastEtag)).GetProperty("lastIndexedEtag").GetInt64();
        }

        await using var second = await RunningServer.StartAsync(_dataDirectory.Path);

        var status = Manager(second.Services).GetStatus("Orders/ByCustomer");
        Assert.NotNull(status);
        Assert.Equal(firstEtag, status.LastIndexedEtag);
        Assert.Equal(2, status.EntryCount);
        var more = await second.Services.GetRequiredService<DocumentStore>().WriteAsync(new WriteBatch()
            .Put("o/3", "Orders", """{"customer":"Ada"}""").Delete("o/1"));
        await WaitUntilCaughtUpAsync(second.Client, "Orders/ByCustomer", more.LastEtag);
        Assert.Equal(2, LookupCount(Manager(second.Services), "Orders/ByCustomer", 0, "ada"u8));
    }

    [Fact]
    public async Task A_changed_definition_builds_side_by_side_while_the_old_index_keeps_serving_then_swaps_in()
    {
        // Small batches make the rebuild take hundreds of commits, long enough to look at it while it runs.
        await using var server = await RunningServer.StartAsync(_dataDirectory.Path, "--Ingest:Indexing:MaxBatchDocuments=10");
        var store = server.Services.GetRequiredService<DocumentStore>();
        var batch = new WriteBatch();
        for (var i = 0; i < 5_000; i++)
        {
            batch.Put($"o/{i}", "Orders", $$"""{"customer":"c{{i % 5}}","region":"r{{i % 2}}"}""");
        }

        var written = await store.WriteAsync(batch);
        using (var put = await server.Client.PutAsync(Relative("/indexes/Orders"), Json(OrdersByCustomer)))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        await WaitUntilCaughtUpAsync(server.Client, "Orders", written.LastEtag);
        var byRegion = """{"collections":["Orders"],"fields":[{"name":"Region","path":"region","type":"keyword"}]}""";
        using (var put = await server.Client.PutAsync(Relative("/indexes/Orders"), Json(byRegion)))
        {
            Assert.Equal(HttpStatusCode.Accepted, put.StatusCode);
        }

        var manager = Manager(server.Services);
        var during = manager.GetStatus("Orders")!;
        Assert.Equal(IndexState.Rebuilding, during.State);
        Assert.Equal("Customer", during.Definition.Fields[0].Name);
        Assert.Equal("Region", during.PendingDefinition?.Fields[0].Name);
        Assert.Equal(1_000, LookupCount(manager, "Orders", 0, "c3"u8));
        var shown = await GetIndexAsync(server, "Orders");
        Assert.Equal("rebuilding", shown.GetProperty("state").GetString());
        Assert.Equal("Region", shown.GetProperty("pendingRebuild").GetProperty("definition").GetProperty("fields")[0].GetProperty("name").GetString());

        var after = await WaitUntilCaughtUpAsync(server.Client, "Orders", written.LastEtag);

        Assert.Equal("indexing", after.GetProperty("state").GetString());
        Assert.Equal("Region", after.GetProperty("definition").GetProperty("fields")[0].GetProperty("name").GetString());
        Assert.Equal(2_500, LookupCount(manager, "Orders", 0, "r1"u8));
        Assert.Equal(0, LookupCount(manager, "Orders", 0, "c3"u8));
    }

    [Fact]
    public async Task An_errored_index_makes_health_503_naming_it_while_other_indexes_and_writes_go_on()
    {
        await using (var first = await RunningServer.StartAsync(_dataDirectory.Path))
        {
            foreach (var name in new[] { "Broken", "Healthy" })
            {
                using var put = await first.Client.PutAsync(Relative("/indexes/" + name), Json(OrdersByCustomer));
                Assert.Equal(HttpStatusCode.Created, put.StatusCode);
            }

            var written = await first.Services.GetRequiredService<DocumentStore>().WriteAsync(new WriteBatch().Put("o/1", "Orders", """{"customer":"Ada"}"""));
            await WaitUntilCaughtUpAsync(first.Client, "Broken", written.LastEtag);
            await WaitUntilCaughtUpAsync(first.Client, "Healthy", written.LastEtag);
        }

        // Damage: every page of the index's data file but its header is overwritten, so the first read fails its checksum.
        var build = Assert.Single(Directory.GetDirectories(Path.Combine(_dataDirectory.Path, QueryEngine.IndexesFolder), "Broken.*"));
        await using (var data = new FileStream(Path.Combine(build, "data.ingest"), FileMode.Open, FileAccess.Write))
        {
            var garbage = new byte[data.Length - PageSize];
            Array.Fill(garbage, (byte)0x5A);
            data.Position = PageSize;
            await data.WriteAsync(garbage);
        }

        await using var server = await RunningServer.StartAsync(_dataDirectory.Path);

        using var health = await server.Client.GetAsync(Relative("/health"));
        var report = await ReadJsonAsync(health, HttpStatusCode.ServiceUnavailable);
        Assert.Equal("unhealthy", report.GetProperty("status").GetString());
        Assert.Equal("open", report.GetProperty("store").GetString());
        var indexes = report.GetProperty("indexes").EnumerateArray().ToDictionary(i => i.GetProperty("name").GetString()!);
        Assert.Equal("errored", indexes["Broken"].GetProperty("state").GetString());
        Assert.Contains("data.ingest", indexes["Broken"].GetProperty("error").GetString(), StringComparison.Ordinal);
        Assert.Equal("indexing", indexes["Healthy"].GetProperty("state").GetString());
        var broken = await GetIndexAsync(server, "Broken");
        Assert.Equal("errored", broken.GetProperty("state").GetString());
        Assert.False(string.IsNullOrEmpty(broken.GetProperty("error").GetString()));

        using var document = await server.Client.PutAsync(Relative("/docs/o/2?collection=Orders"), Json("""{"customer":"Ada"}"""));
        Assert.Equal(HttpStatusCode.Created, document.StatusCode);
        var etag = server.Services.GetRequiredService<DocumentStore>().GetStats().LastEtag;
        await WaitUntilCaughtUpAsync(server.Client, "Healthy", etag);
        Assert.Equal(2, LookupCount(Manager(server.Services), "Healthy", 0, "ada"u8));
    }

    [Fact]
    public async Task An_unreadable_index_catalog_stops_start_up_naming_the_indexes_directory()
    {
        var indexes = Path.Combine(_dataDirectory.Path, QueryEngine.IndexesFolder);
        Directory.CreateDirectory(indexes);
        await File.WriteAllTextAsync(Path.Combine(indexes, "catalog.json"), "{\"indexes\":[{\"name\":");

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunningServer.StartAsync(_dataDirectory.Path));

        Assert.Contains($"The indexes in '{Path.GetFullPath(indexes)}' cannot be opened", error.Message, StringComparison.Ordinal);
    }

    private static async Task<JsonElement> GetIndexAsync(RunningServer server, string name)
    {
        using var response = await server.Client.GetAsync(Relative("/indexes/" + name));
        return await ReadJsonAsync(response, HttpStatusCode.OK);
    }
}
