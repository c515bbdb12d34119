using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using Ingest.Cli.Commands;

namespace Ingest.Cli;

/// <summary>
/// The <c>ingest</c> command line: builds the commands and turns every way a run can end into an exit
/// code, with <c>error: ...</c> lines on stderr for what went wrong (see <see cref="ExitCodes"/>).
/// </summary>
internal static class IngestCommandLine
{
    public const string ToolName = "ingest";

    /// <summary>Set to 1 to print the stack trace of an unexpected failure.</summary>
    public const string DebugVariable = "INGEST_DEBUG";

    public static RootCommand CreateRootCommand() => new("Publish JSON documents for Ingest to store, query and check on a running Ingest server, back it up and restore it, and verify or recover a stopped server's store.")
    {
        new PublishCommand(),
        new QueryCommand(),
        new IndexesCommand(),
        new SourcesCommand(),
        new DeadLettersCommand(),
        new HealthCommand(),
        new StatsCommand(),
        new VerifyCommand(),
        new RecoverCommand(),
        new BackupCommand(),
        new RestoreCommand(),
        new KeysCommand(),
    };

    public static Task<int> InvokeAsync(string[] args) => InvokeAsync(args, Console.Out, Console.Error, CancellationToken.None);

    public static async Task<int> InvokeAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);

        var parseResult = CreateRootCommand().Parse(args);
        if (parseResult.Action is ParseErrorAction)
        {
            // Our own report instead of the library's: one "error:" line per problem and a pointer to
            // --help, rather than the whole help text after the errors, and exit code 2 for a bad invocation.
            foreach (var parseError in parseResult.Errors)
            {
                await error.WriteLineAsync($"error: {parseError.Message}").ConfigureAwait(false);
            }

            await error.WriteLineAsync($"see '{CommandPath(parseResult.CommandResult)} --help'").ConfigureAwait(false);
            return ExitCodes.Usage;
        }

        var configuration = new InvocationConfiguration
        {
            Output = output,
            Error = error,

            // Failures are reported below, without the stack traces the default handler prints.
            EnableDefaultExceptionHandler = false,
        };

        try
        {
            return await parseResult.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
        }
        catch (CommandFailedException ex)
        {
            await error.WriteLineAsync($"error: {ex.Message}").ConfigureAwait(false);
            return ex.ExitCode;
        }
        catch (OperationCanceledException)
        {
            await error.WriteLineAsync("error: cancelled").ConfigureAwait(false);
            return ExitCodes.Failure;
        }
        catch (Exception ex)
        {
            // Not a failure we anticipated: name its type, and give the whole trace when asked for one.
            var detail = Environment.GetEnvironmentVariable(DebugVariable) == "1"
                ? ex.ToString()
                : $"{ex.GetType().Name}: {ex.Message} (set {DebugVariable}=1 for the stack trace)";
            await error.WriteLineAsync($"error: unexpected {detail}").ConfigureAwait(false);
            return ExitCodes.Failure;
        }
    }

    private static string CommandPath(CommandResult command)
    {
        var names = new List<string>();
        for (SymbolResult? result = command; result is CommandResult current; result = current.Parent)
        {
            names.Add(current.Command is RootCommand ? ToolName : current.Command.Name);
        }

        names.Reverse();
        return string.Join(' ', names);
    }
}
