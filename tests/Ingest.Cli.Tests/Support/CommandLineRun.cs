namespace Ingest.Cli.Tests.Support;

/// <summary>One run of the <c>ingest</c> command line in-process, with what it printed.</summary>
internal sealed record CommandLineRun(int ExitCode, string Output, string Error)
{
    public static async Task<CommandLineRun> RunAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exitCode = await IngestCommandLine.InvokeAsync(args, output, error, CancellationToken.None);
        return new CommandLineRun(exitCode, output.ToString(), error.ToString());
    }

    /// <summary>For assertion messages: everything the run printed.</summary>
    public override string ToString() => $"exit code {ExitCode}\nstdout:\n{Output}\nstderr:\n{Error}";
}
