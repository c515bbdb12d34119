using System.Net;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

public sealed class SourcesResetCommandTests
{
    [Theory]
    [InlineData("earliest", """{"to":"earliest"}""")]
    [InlineData("latest", """{"to":"latest"}""")]
    [InlineData("2026-11-26T09:00:00+01:00", """{"to":"2026-11-26T08:00:00Z"}""")]
    [InlineData("2026-11-26T08:00:00", """{"to":"2026-11-26T08:00:00Z"}""")]
    [InlineData("orders:2=980,orders:0=1200,refunds:0=7", """{"to":{"orders":{"0":1200,"2":980},"refunds":{"0":7}}}""")]
    public async Task Reset_posts_the_target_and_prints_each_partition_moved(string to, string expectedBody)
    {
        var bodies = new List<string>();
        using var server = new StubHttpServer(request =>
        {
            using (var reader = new StreamReader(request.InputStream))
            {
                lock (bodies)
                {
                    bodies.Add($"{request.HttpMethod} {request.RawUrl} {request.ContentType} {reader.ReadToEnd()}");
                }
            }

            return (HttpStatusCode.OK, """
                {"source":"orders","to":"earliest","partitions":[{"topic":"orders","partition":0,"from":1200,"to":0},{"topic":"orders","partition":1,"from":null,"to":0}]}
                """);
        });

        var run = await CommandLineRun.RunAsync("sources", "reset", "orders", "--to", to, "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal([$"POST /sources/orders/reset application/json {expectedBody}"], bodies);
        Assert.Equal(
            """
            source 'orders' reset to earliest: what it had consumed is written, and it now consumes from these offsets (messages from there on are applied again)
            topic   partition  from  to
            ------  ---------  ----  --
            orders  0          1200  0
            orders  1          none  0

            """.ReplaceLineEndings(),
            run.Output);
    }

    [Fact]
    public async Task A_refused_reset_exits_1_with_the_server_message()
    {
        using var server = new StubHttpServer(request => request.RawUrl switch
        {
            "/sources/events/reset" => (HttpStatusCode.Conflict, """
                {"title":"Source cannot be reset","status":409,"detail":"The RabbitMQ source 'events' cannot be reset: a queue cannot rewind (acknowledged messages are gone from it). Publish the messages again, or replay dead letters; only Kafka sources can be reset."}
                """),
            _ => (HttpStatusCode.NotFound, """{"title":"Source not found","status":404,"detail":"There is no source 'nowhere' (configured: 'orders', 'events')."}"""),
        });

        var rabbit = await CommandLineRun.RunAsync("sources", "reset", "events", "--to", "earliest", "--url", server.Url.ToString());
        var missing = await CommandLineRun.RunAsync("sources", "reset", "nowhere", "--to", "earliest", "--url", server.Url.ToString());

        Assert.Equal(1, rabbit.ExitCode);
        Assert.Equal(
            "error: Source cannot be reset: The RabbitMQ source 'events' cannot be reset: a queue cannot rewind (acknowledged messages are gone from it). "
            + "Publish the messages again, or replay dead letters; only Kafka sources can be reset. (HTTP 409)" + Environment.NewLine,
            rabbit.Error);
        Assert.Equal(1, missing.ExitCode);
        Assert.Equal("error: Source not found: There is no source 'nowhere' (configured: 'orders', 'events'). (HTTP 404)" + Environment.NewLine, missing.Error);
        Assert.Empty(rabbit.Output);
    }

    [Theory]
    [InlineData("yesterday", "--to 'yesterday' is none of earliest, latest, an ISO 8601 time")]
    [InlineData("orders=5", "--to: 'orders=5' is not topic:partition=offset")]
    [InlineData("orders:0=-1", "--to: 'orders:0=-1' is not topic:partition=offset")]
    [InlineData("orders:x=1", "--to: 'orders:x=1' is not topic:partition=offset")]
    [InlineData("orders:0=1,orders:0=2", "--to names orders:0 twice")]
    public async Task A_bad_target_is_a_usage_error_that_says_what_is_accepted_and_sends_nothing(string to, string expected)
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, "{}"));

        var run = await CommandLineRun.RunAsync("sources", "reset", "orders", "--to", to, "--url", server.Url.ToString());

        Assert.Equal(2, run.ExitCode);
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
        Assert.Empty(server.RequestedPaths);
    }

    [Fact]
    public async Task Help_shows_the_target_forms_and_a_missing_to_is_a_usage_error()
    {
        var help = await CommandLineRun.RunAsync("sources", "reset", "--help");
        var noTo = await CommandLineRun.RunAsync("sources", "reset", "orders");

        Assert.Contains("ingest sources reset orders --to orders:0=1200,orders:2=980", help.Output, StringComparison.Ordinal);
        Assert.Contains("RabbitMQ sources cannot be reset", help.Output, StringComparison.Ordinal);
        Assert.Equal(2, noTo.ExitCode);
        Assert.Contains("--to", noTo.Error, StringComparison.Ordinal);
    }
}
