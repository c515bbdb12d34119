using Ingest.Cli.Publishing;

namespace Ingest.Cli.Tests.Publishing;

public sealed class PublishProgressTests
{
    [Fact]
    public async Task Without_a_terminal_progress_is_plain_periodic_lines_with_counts_rates_and_an_eta()
    {
        using var output = new StringWriter();
        var progress = new PublishProgress(TextWriter.Synchronized(output), interactive: false, totalDocuments: 1000, TimeSpan.FromMilliseconds(20));
        await using (progress)
        {
            progress.Acknowledged(250, 250 * 1024);
            await WaitForLinesAsync(output, 2, "250/1000");
        }

        var lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        // A report may come before the acknowledgement on a loaded machine; the last one has it.
        Assert.All(lines, line => Assert.Matches(@"^progress: [0-9]+/1000 documents \([0-9]+%\), [0-9]+ msg/s, [0-9]+\.[0-9] MB/s, ETA ([0-9]+ s|-)$", line));
        Assert.Matches(@"^progress: 250/1000 documents \(25%\), [0-9]+ msg/s, [0-9]+\.[0-9] MB/s, ETA [0-9]+ s$", lines[^1]);
        Assert.DoesNotContain('\r', output.ToString());
    }

    [Fact]
    public async Task On_a_terminal_a_bar_is_redrawn_in_place_and_finished_with_a_newline()
    {
        using var output = new StringWriter();
        var progress = new PublishProgress(TextWriter.Synchronized(output), interactive: true, totalDocuments: 10, TimeSpan.FromMilliseconds(20));
        await using (progress)
        {
            progress.Acknowledged(10, 2048);
            await WaitForLinesAsync(output, 1, "\r");
        }

        var text = output.ToString();
        Assert.StartsWith("\r[", text, StringComparison.Ordinal);
        Assert.Matches(@"\r\[#{30}\] 10/10 documents \(100%\), [0-9]+ msg/s, [0-9]+\.[0-9] MB/s, ETA -\r?\n$", text);
    }

    private static async Task WaitForLinesAsync(StringWriter output, int count, string separator = "\n")
    {
        // Until `count` reports (split by the separator) were written.
        for (var i = 0; i < 500 && output.ToString().Split(separator).Length <= count; i++)
        {
            await Task.Delay(10);
        }
    }
}
