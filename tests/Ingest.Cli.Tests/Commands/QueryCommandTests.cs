using System.Net;
using System.Text.Json;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

public sealed class QueryCommandTests
{
    private const string DocumentsAnswer = """
        {"results":[
          {"id":"orders/1","collection":"Orders","etag":7,"lastModified":"2026-11-23T12:00:00Z","document":{"Customer":"acme","Total":12.5,"Tags":["vip"]}},
          {"id":"orders/2","collection":"Orders","etag":8,"lastModified":"2026-11-23T12:00:01Z","document":{"Customer":"globex","Total":7}}
        ],"totalResults":2,"isStale":false,"indexName":"Auto/Orders/ByTotal","automaticIndex":true,"indexCreated":true,"lastIndexedEtag":8,"durationMs":3.25,"continuation":null}
        """;

    private const string GroupedAnswer = """
        {"results":[{"Status":"shipped","count()":3,"sum(Total)":40.5},{"Status":"new, \"urgent\"","count()":1,"sum(Total)":2}],
         "totalResults":2,"isStale":true,"indexName":"Orders/ByStatus","automaticIndex":false,"indexCreated":false,"lastIndexedEtag":5,"durationMs":1,"continuation":"abc123"}
        """;

    [Fact]
    public async Task Documents_print_as_a_table_of_id_and_compact_json_with_a_summary()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, DocumentsAnswer));

        var run = await CommandLineRun.RunAsync("query", "from Orders where Total > 5", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            id        document
            --------  -----------------------------------------------
            orders/1  {"Customer":"acme","Total":12.5,"Tags":["vip"]}
            orders/2  {"Customer":"globex","Total":7}

            2 of 2 results from index 'Auto/Orders/ByTotal' (created for this query) in 3.3 ms

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Equal(["/queries"], server.RequestedPaths);
    }

    [Fact]
    public async Task Rows_print_by_their_columns_and_csv_quotes_what_needs_quoting()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, GroupedAnswer));

        var table = await CommandLineRun.RunAsync("query", "from Orders group by Status select Status, count(), sum(Total)", "--url", server.Url.ToString());
        var csv = await CommandLineRun.RunAsync("query", "from Orders group by Status select Status, count(), sum(Total)", "--url", server.Url.ToString(), "--format", "csv");

        Assert.StartsWith(
            """
            Status         count()  sum(Total)
            -------------  -------  ----------
            shipped        3        40.5
            new, "urgent"  1        2

            2 of 2 results from index 'Orders/ByStatus', stale (indexed up to etag 5) in 1 ms; next page: --continuation abc123
            """.ReplaceLineEndings(),
            table.Output);
        Assert.Equal("Status,count(),sum(Total)\r\nshipped,3,40.5\r\n\"new, \"\"urgent\"\"\",1,2\r\n", csv.Output);
        Assert.StartsWith("2 of 2 results", csv.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Parameters_wait_and_continuation_go_in_the_request_body()
    {
        string? body = null;
        using var server = new StubHttpServer(request =>
        {
            using var reader = new StreamReader(request.InputStream);
            body = request.HttpMethod + " " + reader.ReadToEnd();
            return (HttpStatusCode.OK, DocumentsAnswer);
        });

        var run = await CommandLineRun.RunAsync(
            "query", "from Orders where Total > $min and Status = $status and Tags[] in $tags", "--url", server.Url.ToString(),
            "--param", "min=10", "-p", "status=shipped", "--param", "tags=[\"vip\",\"urgent\"]", "--param", "code=\"10\"", "--wait", "5s", "--continuation", "tok");

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.NotNull(body);
        Assert.StartsWith("POST ", body, StringComparison.Ordinal);
        using var sent = JsonDocument.Parse(body[5..]);
        var root = sent.RootElement;
        Assert.Equal("from Orders where Total > $min and Status = $status and Tags[] in $tags", root.GetProperty("query").GetString());
        Assert.Equal("""{"min":10,"status":"shipped","tags":["vip","urgent"],"code":"10"}""", root.GetProperty("parameters").GetRawText());
        Assert.Equal("5s", root.GetProperty("waitForNonStale").GetString());
        Assert.Equal("tok", root.GetProperty("continuation").GetString());
    }

    [Fact]
    public async Task Json_format_prints_the_answer_as_the_server_sent_it()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, GroupedAnswer));

        var run = await CommandLineRun.RunAsync("query", "from Orders", "--url", server.Url.ToString(), "--format", "json");

        Assert.Equal(GroupedAnswer + Environment.NewLine, run.Output);
    }

    [Fact]
    public async Task A_bad_query_exits_1_with_the_problem_and_its_position()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.BadRequest, """
            {"type":"urn:ingest:problem:invalid-query","title":"Invalid query","status":400,"detail":"line 1, col 27: expected a value after '=' but found 'order'","line":1,"column":27}
            """));

        var run = await CommandLineRun.RunAsync("query", "from Orders where Total = order by Total", "--url", server.Url.ToString());

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("error: Invalid query: line 1, col 27: expected a value after '=' but found 'order' (HTTP 400)" + Environment.NewLine, run.Error);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task A_parameter_without_a_value_is_a_usage_error()
    {
        var run = await CommandLineRun.RunAsync("query", "from Orders where Total > $min", "--param", "min");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--param 'min' is not NAME=VALUE", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_shows_examples()
    {
        var query = await CommandLineRun.RunAsync("query", "--help");
        var indexes = await CommandLineRun.RunAsync("indexes", "--help");

        Assert.Equal(0, query.ExitCode);
        Assert.Contains("ingest query \"from Orders where Status = 'shipped' order by Total desc limit 10\"", query.Output, StringComparison.Ordinal);
        Assert.Contains("--format", query.Output, StringComparison.Ordinal);
        Assert.Contains("ingest indexes show Auto/Orders/ByCustomerAndTotal", indexes.Output, StringComparison.Ordinal);
    }
}
