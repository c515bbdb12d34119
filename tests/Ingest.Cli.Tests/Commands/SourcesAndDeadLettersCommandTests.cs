using System.Net;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

public sealed class SourcesAndDeadLettersCommandTests
{
    [Fact]
    public async Task Sources_prints_each_source_with_its_counts_and_total_lag()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, """
            {"store":{},"collections":[],"deadLetters":1,"indexes":[],"etl":[],"sources":[
              {"name":"orders","kind":"kafka","connected":true,"error":null,"consumed":120,"written":118,"deadLetters":1,"paused":false,
               "partitions":[{"name":"orders","partition":0,"committedOffset":60,"highWatermark":62,"lag":2},{"name":"orders","partition":1,"committedOffset":60,"highWatermark":61,"lag":1}],"batching":{}},
              {"name":"events","kind":"rabbitmq","connected":false,"error":"connection refused","consumed":0,"written":0,"deadLetters":0,"paused":true,
               "partitions":[{"name":"events","partition":0,"committedOffset":null,"highWatermark":null,"lag":null}],"batching":{}}
            ]}
            """));

        var run = await CommandLineRun.RunAsync("sources", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            name    kind      connection    consumed  written  dead letters  lag  state    error
            ------  --------  ------------  --------  -------  ------------  ---  -------  ------------------
            orders  kafka     connected     120       118      1             3    running
            events  rabbitmq  disconnected  0         0        0             ?    paused   connection refused

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Equal(["/stats"], server.RequestedPaths);
    }

    [Fact]
    public async Task Dead_letters_list_follows_the_pages_and_prints_every_one()
    {
        using var server = new StubHttpServer(request => request.QueryString["start"] == "0"
            ? (HttpStatusCode.OK, """{"items":[{"id":1,"source":"orders/orders","partition":0,"offset":7,"reason":"not JSON","stored":"2026-11-23T18:00:00Z"}],"next":1}""")
            : (HttpStatusCode.OK, """{"items":[{"id":2,"source":"orders/orders","partition":1,"offset":9,"reason":"no id","stored":"2026-11-23T18:00:01Z"}],"next":null}"""));

        var run = await CommandLineRun.RunAsync("dead-letters", "list", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            id  source         position  stored                reason
            --  -------------  --------  --------------------  --------
            1   orders/orders  0@7       2026-11-23T18:00:00Z  not JSON
            2   orders/orders  1@9       2026-11-23T18:00:01Z  no id

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Equal(2, server.RequestedPaths.Count);
    }

    [Fact]
    public async Task Dead_letters_show_replay_and_delete_address_the_dead_letter_and_a_missing_one_exits_1_naming_it()
    {
        var requests = new List<string>();
        using var server = new StubHttpServer(request =>
        {
            lock (requests)
            {
                requests.Add($"{request.HttpMethod} {request.RawUrl}");
            }

            return request.RawUrl switch
            {
                "/dead-letters/5" when request.HttpMethod == "GET" => (HttpStatusCode.OK, """{"id":5,"reason":"not JSON"}"""),
                "/dead-letters/5/replay" => (HttpStatusCode.OK, """{"id":"orders/5","etag":12}"""),
                "/dead-letters/5" => (HttpStatusCode.NoContent, string.Empty),
                _ => (HttpStatusCode.NotFound, """{"title":"Dead letter not found","status":404,"detail":"There is no dead letter 6."}"""),
            };
        });

        var show = await CommandLineRun.RunAsync("dead-letters", "show", "5", "--url", server.Url.ToString());
        var replay = await CommandLineRun.RunAsync("dead-letters", "replay", "5", "--url", server.Url.ToString());
        var delete = await CommandLineRun.RunAsync("dead-letters", "delete", "5", "--url", server.Url.ToString());
        var missing = await CommandLineRun.RunAsync("dead-letters", "delete", "6", "--url", server.Url.ToString());

        Assert.Contains("\"reason\": \"not JSON\"", show.Output, StringComparison.Ordinal);
        Assert.Equal("dead letter 5 replayed: stored as a document and removed" + Environment.NewLine, replay.Output);
        Assert.Equal("dead letter 5 deleted" + Environment.NewLine, delete.Output);
        Assert.Equal(1, missing.ExitCode);
        Assert.Equal("error: Dead letter not found: There is no dead letter 6. (HTTP 404)" + Environment.NewLine, missing.Error);
        Assert.Equal(["GET /dead-letters/5", "POST /dead-letters/5/replay", "DELETE /dead-letters/5", "DELETE /dead-letters/6"], requests);
    }

    [Fact]
    public async Task Help_of_each_new_command_shows_examples_and_a_missing_id_is_a_usage_error()
    {
        var sources = await CommandLineRun.RunAsync("sources", "--help");
        var deadLetters = await CommandLineRun.RunAsync("dead-letters", "--help");
        var noId = await CommandLineRun.RunAsync("dead-letters", "show");

        Assert.Contains("ingest sources --url", sources.Output, StringComparison.Ordinal);
        Assert.Contains("ingest dead-letters replay 42", deadLetters.Output, StringComparison.Ordinal);
        Assert.Equal(2, noId.ExitCode);
        Assert.StartsWith("error: ", noId.Error, StringComparison.Ordinal);
    }
}
