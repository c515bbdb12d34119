using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

/// <summary>
/// Parsing and input validation of <c>ingest publish</c>. None of these reach a broker: the ones that
/// get past parsing point at a port nothing listens on, so an attempt to publish would fail with 1, not 2.
/// </summary>
public sealed class PublishCommandTests
{
    private static readonly string NoBroker = $"127.0.0.1:{LocalPorts.Unused()}";

    [Fact]
    public async Task Publish_kafka_without_topic_fails_with_a_message()
    {
        using var input = TempFile.Write("{\"id\":\"a\"}");

        var run = await CommandLineRun.RunAsync("publish", "kafka", "--bootstrap", NoBroker, "--id-property", "id", input.Path);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("error: Option '--topic' is required.", run.Error, StringComparison.Ordinal);
        Assert.Contains("see 'ingest publish kafka --help'", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Publish_without_a_destination_asks_for_one()
    {
        var run = await CommandLineRun.RunAsync("publish");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("error: Required command was not provided.", run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("every document needs an id", "f.json")]
    [InlineData("either --id or --id-property", "--id", "a", "--id-property", "id", "f.json")]
    [InlineData("with --lines, use --id-property", "--id", "a", "--lines", "f.json")]
    [InlineData("give the input", "--id-property", "id")]
    [InlineData("give the input", "--id", "a")]
    [InlineData("--id must not be empty", "--id", "", "f.json")]
    [InlineData("--collection must not be empty", "--id", "a", "--collection", " ", "f.json")]
    [InlineData("--timeout must be a positive number", "--id", "a", "--timeout", "0", "f.json")]
    public async Task Publish_kafka_rejects_inconsistent_options(string expected, params string[] options)
    {
        var run = await CommandLineRun.RunAsync(["publish", "kafka", "--bootstrap", NoBroker, "--topic", "t", .. options]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("give either --queue QUEUE or --exchange EXCHANGE", "--uri", "amqp://localhost/")]
    [InlineData("give either --queue QUEUE or --exchange EXCHANGE", "--uri", "amqp://localhost/", "--queue", "q", "--exchange", "x")]
    [InlineData("--routing-key goes with --exchange", "--uri", "amqp://localhost/", "--queue", "q", "--routing-key", "k")]
    [InlineData("not an absolute amqp or amqps URI", "--uri", "http://localhost/", "--queue", "q")]
    [InlineData("Option '--uri' is required.", "--queue", "q")]
    public async Task Publish_rabbitmq_rejects_a_missing_or_ambiguous_destination(string expected, params string[] options)
    {
        var run = await CommandLineRun.RunAsync(["publish", "rabbitmq", .. options, "--id", "a", "f.json"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public void Delete_by_id_needs_no_input()
    {
        var parse = IngestCommandLine.CreateRootCommand().Parse(["publish", "kafka", "--bootstrap", NoBroker, "--topic", "t", "--id", "a", "--delete"]);

        Assert.Empty(parse.Errors);
    }

    [Fact]
    public async Task Invalid_input_is_reported_by_line_and_nothing_is_sent()
    {
        using var input = TempFile.Write("{\"id\":\"a\"}\n{\"id\":\"b\",}\n{\"name\":\"c\"}\n");

        var run = await CommandLineRun.RunAsync("publish", "kafka", "--bootstrap", NoBroker, "--topic", "t", "--lines", "--id-property", "id", input.Path);

        // 2, not 1: the broker that does not exist was never contacted.
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"error: {input.Path}: line 2, column 11: ", run.Error, StringComparison.Ordinal);
        Assert.Contains($"error: {input.Path}: line 3: ", run.Error, StringComparison.Ordinal);
        Assert.Contains($"error: 2 problems in {input.Path}; nothing was published", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task A_missing_input_file_is_a_usage_error()
    {
        using var directory = new TestDirectory();
        var path = directory.Combine("missing.json");

        var run = await CommandLineRun.RunAsync("publish", "kafka", "--bootstrap", NoBroker, "--topic", "t", "--id", "a", path);

        Assert.Equal(2, run.ExitCode);
        Assert.Equal($"error: no such file: {path}", run.Error.Trim());
    }

    [Fact]
    public async Task Unreachable_kafka_fails_at_once_with_a_message()
    {
        var run = await CommandLineRun.RunAsync("publish", "kafka", "--bootstrap", NoBroker, "--topic", "t", "--id", "a", "--delete");

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot reach kafka at {NoBroker}: ", run.Error, StringComparison.Ordinal);
        Assert.Contains("0 of 1 documents were delivered", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unreachable_rabbitmq_fails_with_a_message_that_hides_the_password()
    {
        var run = await CommandLineRun.RunAsync("publish", "rabbitmq", "--uri", $"amqp://guest:secret@{NoBroker}/", "--queue", "q", "--id", "a", "--delete");

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot connect to rabbitmq at amqp://{NoBroker}/: ", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_describes_the_options()
    {
        var run = await CommandLineRun.RunAsync("publish", "kafka", "--help");

        Assert.Equal(0, run.ExitCode);
        foreach (var option in new[] { "--bootstrap", "--topic", "--id", "--id-property", "--lines", "--collection", "--delete" })
        {
            Assert.Contains(option, run.Output, StringComparison.Ordinal);
        }
    }
}
