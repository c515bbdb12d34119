using System.Net;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

public sealed class IndexesCommandTests
{
    [Fact]
    public async Task List_prints_every_index_with_its_kind_and_state()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, """
            {"items":[
              {"name":"Auto/Orders/ByTotal","state":"indexing","error":null,"stale":false,"lastIndexedEtag":1200,"collectionsLastEtag":1200,"entries":1000,"automatic":true},
              {"name":"Orders/ByCustomer","state":"rebuilding","error":null,"stale":true,"lastIndexedEtag":900,"collectionsLastEtag":1200,"entries":800,"automatic":false}
            ]}
            """));

        var run = await CommandLineRun.RunAsync("indexes", "list", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            name                 kind    state       freshness  entries  last etag
            -------------------  ------  ----------  ---------  -------  ---------
            Auto/Orders/ByTotal  auto    indexing    current    1000     1200
            Orders/ByCustomer    static  rebuilding  stale      800      900

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Equal(["/indexes"], server.RequestedPaths);
    }

    [Fact]
    public async Task Reset_and_delete_address_the_index_by_its_name()
    {
        var requests = new List<string>();
        using var server = new StubHttpServer(request =>
        {
            lock (requests)
            {
                requests.Add($"{request.HttpMethod} {request.RawUrl}");
            }

            return request.HttpMethod == "DELETE" ? (HttpStatusCode.NoContent, string.Empty) : (HttpStatusCode.Accepted, """{"name":"Orders/ByCustomer","outcome":"rebuilding"}""");
        });

        var reset = await CommandLineRun.RunAsync("indexes", "reset", "Orders/ByCustomer", "--url", server.Url.ToString());
        var delete = await CommandLineRun.RunAsync("indexes", "delete", "Auto/Orders/By Total", "--url", server.Url.ToString());

        Assert.True(reset.ExitCode == 0, reset.ToString());
        Assert.True(delete.ExitCode == 0, delete.ToString());
        Assert.Equal(["POST /indexes/Orders/ByCustomer/reset", "DELETE /indexes/Auto/Orders/By%20Total"], requests);
        Assert.StartsWith("index 'Orders/ByCustomer' is being rebuilt", reset.Output, StringComparison.Ordinal);
        Assert.Equal("index 'Auto/Orders/By Total' deleted" + Environment.NewLine, delete.Output);
    }

    [Fact]
    public async Task Show_prints_the_details_and_an_unknown_index_exits_1_naming_it()
    {
        using var server = new StubHttpServer(request => request.RawUrl == "/indexes/Orders/ByCustomer"
            ? (HttpStatusCode.OK, """{"name":"Orders/ByCustomer","state":"indexing","entries":3}""")
            : (HttpStatusCode.NotFound, """{"title":"Index not found","status":404,"detail":"There is no index named 'Nope'."}"""));

        var shown = await CommandLineRun.RunAsync("indexes", "show", "Orders/ByCustomer", "--url", server.Url.ToString());
        var missing = await CommandLineRun.RunAsync("indexes", "show", "Nope", "--url", server.Url.ToString());

        Assert.Contains("\"entries\": 3", shown.Output, StringComparison.Ordinal);
        Assert.Equal(1, missing.ExitCode);
        Assert.Equal("error: Index not found: There is no index named 'Nope'. (HTTP 404)" + Environment.NewLine, missing.Error);
    }

    [Fact]
    public async Task Unreachable_server_exits_1_with_a_clear_message()
    {
        var url = $"http://127.0.0.1:{LocalPorts.Unused()}";

        var run = await CommandLineRun.RunAsync("indexes", "list", "--url", url);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot reach the server at {url}/indexes: ", run.Error, StringComparison.Ordinal);
    }
}
