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
              {"name":"Orders/ByCustomer","state":"rebuilding","error":null,"stale":true,"lastIndexedEtag":900,"collectionsLastEtag":1200,"entries":800,"automatic":false},
              {"name":"Orders/RevenuePerHour","state":"indexing","error":null,"stale":false,"lastIndexedEtag":1200,"collectionsLastEtag":1200,"entries":1200,"automatic":false,"mapReduce":true}
            ]}
            """));

        var run = await CommandLineRun.RunAsync("indexes", "list", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            name                   kind        state       freshness  entries  last etag
            ---------------------  ----------  ----------  ---------  -------  ---------
            Auto/Orders/ByTotal    auto        indexing    current    1000     1200
            Orders/ByCustomer      static      rebuilding  stale      800      900
            Orders/RevenuePerHour  map-reduce  indexing    current    1200     1200

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
    public async Task Define_from_flags_puts_a_map_reduce_definition_and_prints_its_group_keys_and_aggregates()
    {
        var (server, requests) = RecordingServer(HttpStatusCode.Created, """{"name":"Orders/RevenuePerHour","outcome":"created"}""");
        using (server)
        {
            var run = await CommandLineRun.RunAsync(
                "indexes", "define", "Orders/RevenuePerHour", "--collection", "Orders",
                "--field", "Status:keyword", "--field", "Total:number", "--field", "OrderedAt:datetime:Meta.OrderedAt",
                "--group-by", "Status", "--group-by", "Hour=OrderedAt:1h",
                "--aggregate", "Orders=count", "--aggregate", "Revenue=sum(Total)", "--aggregate", "Largest = max(Total)",
                "--url", server.Url.ToString());

            Assert.True(run.ExitCode == 0, run.ToString());
            var (line, body) = Assert.Single(requests);
            Assert.Equal("PUT /indexes/Orders/RevenuePerHour", line);
            Assert.Equal(
                """{"collections":["Orders"],"fields":[{"name":"Status","path":"Status","type":"keyword"},{"name":"Total","path":"Total","type":"number"},{"name":"OrderedAt","path":"Meta.OrderedAt","type":"datetime"}],"reduce":{"groupBy":[{"field":"Status"},{"name":"Hour","field":"OrderedAt","interval":"1h"}],"aggregates":[{"name":"Orders","function":"count"},{"name":"Revenue","function":"sum","field":"Total"},{"name":"Largest","function":"max","field":"Total"}]}}""",
                body);
            Assert.Equal(
                """
                index 'Orders/RevenuePerHour' created
                  collections: Orders
                  fields: Status (keyword), Total (number), OrderedAt (datetime, from Meta.OrderedAt)
                  group by: Status, Hour = OrderedAt per 1h
                  aggregates: Orders = count, Revenue = sum(Total), Largest = max(Total)

                """.ReplaceLineEndings(),
                run.Output);
        }
    }

    [Fact]
    public async Task Define_from_a_file_sends_it_as_written_and_a_change_says_it_rebuilds()
    {
        const string Definition = """{"collections":["Orders"],"fields":[{"name":"Company","path":"Company","type":"keyword"}],"reduce":{"groupBy":[{"field":"Company"}],"aggregates":[{"name":"Orders","function":"count"}]}}""";
        using var file = TempFile.Write(Definition);
        var (server, requests) = RecordingServer(HttpStatusCode.Accepted, """{"name":"Orders/ByCompany","outcome":"rebuilding"}""");
        using (server)
        {
            var run = await CommandLineRun.RunAsync("indexes", "define", "Orders/ByCompany", "--file", file.Path, "--url", server.Url.ToString());

            Assert.True(run.ExitCode == 0, run.ToString());
            Assert.Equal(("PUT /indexes/Orders/ByCompany", Definition), Assert.Single(requests));
            Assert.StartsWith("index 'Orders/ByCompany' changed: it is being rebuilt side by side", run.Output, StringComparison.Ordinal);
            Assert.Contains("  group by: Company" + Environment.NewLine + "  aggregates: Orders = count", run.Output, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Define_refuses_malformed_flags_both_sources_or_none_with_exit_code_2_and_sends_nothing()
    {
        var (server, requests) = RecordingServer(HttpStatusCode.Created, "{}");
        using var notJson = TempFile.Write("collections: Orders");
        using (server)
        {
            var url = server.Url.ToString();
            var badAggregate = await CommandLineRun.RunAsync("indexes", "define", "X", "--collection", "Orders", "--field", "Total:number", "--aggregate", "sum(Total)", "--url", url);
            var badKey = await CommandLineRun.RunAsync("indexes", "define", "X", "--collection", "Orders", "--field", "At:datetime", "--group-by", "Hour=At:", "--url", url);
            var badField = await CommandLineRun.RunAsync("indexes", "define", "X", "--collection", "Orders", "--field", "Total", "--url", url);
            var both = await CommandLineRun.RunAsync("indexes", "define", "X", "--file", notJson.Path, "--collection", "Orders", "--url", url);
            var none = await CommandLineRun.RunAsync("indexes", "define", "X", "--url", url);
            var unreadable = await CommandLineRun.RunAsync("indexes", "define", "X", "--file", notJson.Path, "--url", url);

            Assert.All(new[] { badAggregate, badKey, badField, both, none, unreadable }, r => Assert.True(r.ExitCode == 2, r.ToString()));
            Assert.Contains("--aggregate 'sum(Total)': expected Name=function or Name=function(Field)", badAggregate.Error, StringComparison.Ordinal);
            Assert.Contains("--group-by 'Hour=At:': expected Field, Name=Field or Name=Field:interval", badKey.Error, StringComparison.Ordinal);
            Assert.Contains("--field 'Total': expected Name:type", badField.Error, StringComparison.Ordinal);
            Assert.Contains("not both", both.Error, StringComparison.Ordinal);
            Assert.Contains("give the definition: --file definition.json", none.Error, StringComparison.Ordinal);
            Assert.Contains("is not JSON", unreadable.Error, StringComparison.Ordinal);
            Assert.Empty(requests);
        }
    }

    [Fact]
    public async Task Show_summary_prints_a_map_reduce_index_s_group_keys_and_aggregates()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, """
            {"name":"Orders/RevenuePerHour","state":"indexing","stale":false,"entries":1200,
             "definition":{"name":"Orders/RevenuePerHour","collections":["Orders"],
               "fields":[{"name":"Status","path":"Status","type":"keyword"},{"name":"Total","path":"Total","type":"number"},{"name":"OrderedAt","path":"OrderedAt","type":"datetime"}],
               "reduce":{"groupBy":[{"name":"Status","field":"Status"},{"name":"Hour","field":"OrderedAt","interval":"1h"}],
                         "aggregates":[{"name":"Orders","function":"count"},{"name":"Customers","function":"countDistinct","field":"Status"}]}}}
            """));

        var run = await CommandLineRun.RunAsync("indexes", "show", "Orders/RevenuePerHour", "--summary", "--url", server.Url.ToString());
        var json = await CommandLineRun.RunAsync("indexes", "show", "Orders/RevenuePerHour", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            map-reduce index Orders/RevenuePerHour: indexing, current, 1200 entries
              collections: Orders
              fields: Status (keyword), Total (number), OrderedAt (datetime)
              group by: Status, Hour = OrderedAt per 1h
              aggregates: Orders = count, Customers = countDistinct(Status)

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Contains("\"interval\": \"1h\"", json.Output, StringComparison.Ordinal);
    }

    /// <summary>A server answering every request with <paramref name="status"/> and <paramref name="body"/>, recording each request line and body.</summary>
    private static (StubHttpServer Server, List<(string Line, string Body)> Requests) RecordingServer(HttpStatusCode status, string body)
    {
        var requests = new List<(string, string)>();
        var server = new StubHttpServer(request =>
        {
            using var reader = new StreamReader(request.InputStream);
            var sent = reader.ReadToEnd();
            lock (requests)
            {
                requests.Add(($"{request.HttpMethod} {request.RawUrl}", sent));
            }

            return (status, body);
        });
        return (server, requests);
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
