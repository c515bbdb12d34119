namespace Ingest.Cli;

/// <summary>
/// A failure the user can act on (bad input, unreachable broker, rejected message). Its message is
/// printed as <c>error: ...</c> without a stack trace, and the process exits with <see cref="ExitCode"/>.
/// </summary>
internal sealed class CommandFailedException : Exception
{
    public CommandFailedException(int exitCode, string message)
        : base(message)
    {
        ExitCode = exitCode;
    }

    public CommandFailedException(int exitCode, string message, Exception innerException)
        : base(message, innerException)
    {
        ExitCode = exitCode;
    }

    public int ExitCode { get; }
}
