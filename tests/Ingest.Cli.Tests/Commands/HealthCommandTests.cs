using System.Net;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

public sealed class HealthCommandTests
{
    [Fact]
    public async Task Healthy_server_prints_its_status_and_exits_0()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, "{\"status\":\"healthy\",\"dataDirectory\":\"/var/lib/ingest\"}"));

        var run = await CommandLineRun.RunAsync("health", "--url", server.Url.ToString());

        Assert.Equal(0, run.ExitCode);
        Assert.StartsWith($"healthy ({server.Url}health, HTTP 200)", run.Output, StringComparison.Ordinal);
        Assert.Contains("  dataDirectory: /var/lib/ingest", run.Output, StringComparison.Ordinal);
        Assert.Equal(["/health"], server.RequestedPaths);
    }

    [Fact]
    public async Task Unhealthy_server_prints_its_status_and_exits_1()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.ServiceUnavailable, "{\"status\":\"unhealthy\",\"dataDirectory\":\"/gone\"}"));

        var run = await CommandLineRun.RunAsync("health", "--url", server.Url.ToString());

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith("unhealthy (", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Api_key_is_sent_in_its_header()
    {
        using var server = new StubHttpServer(request => request.Headers["X-Api-Key"] == "0123456789abcdef"
            ? (HttpStatusCode.OK, "{\"status\":\"healthy\"}")
            : (HttpStatusCode.Unauthorized, "{\"title\":\"Missing or wrong API key\"}"));

        var withKey = await CommandLineRun.RunAsync("health", "--url", server.Url.ToString(), "--api-key", "0123456789abcdef");
        var withoutKey = await CommandLineRun.RunAsync("health", "--url", server.Url.ToString());

        Assert.Equal(0, withKey.ExitCode);
        Assert.Equal(1, withoutKey.ExitCode);
        Assert.Contains("HTTP 401", withoutKey.Error, StringComparison.Ordinal);
        Assert.Contains("--api-key", withoutKey.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_path_prefix_in_the_url_is_kept()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, "{\"status\":\"healthy\"}"));

        var run = await CommandLineRun.RunAsync("health", "--url", $"{server.Url}ingest");

        Assert.Equal(0, run.ExitCode);
        Assert.Equal(["/ingest/health"], server.RequestedPaths);
    }

    [Fact]
    public async Task An_answer_without_a_status_is_not_healthy()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.NotFound, "<html>not here</html>"));

        var run = await CommandLineRun.RunAsync("health", "--url", server.Url.ToString());

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("HTTP 404", run.Error, StringComparison.Ordinal);
        Assert.Contains("without a health status", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unreachable_server_exits_1_with_a_clear_message()
    {
        var url = $"http://127.0.0.1:{LocalPorts.Unused()}";

        var run = await CommandLineRun.RunAsync("health", "--url", url);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot reach the server at {url}/health: ", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Url_must_be_http()
    {
        var run = await CommandLineRun.RunAsync("health", "--url", "localhost:8080");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("not an absolute http or https URI", run.Error, StringComparison.Ordinal);
    }
}
