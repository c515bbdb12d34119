namespace Ingest.Cli;

/// <summary>Process exit codes, so scripts can tell a bad invocation from a failed operation.</summary>
internal static class ExitCodes
{
    public const int Success = 0;

    /// <summary>The operation ran and failed: broker or server unreachable, delivery failed, server unhealthy.</summary>
    public const int Failure = 1;

    /// <summary>The invocation itself is wrong: bad arguments, unreadable or invalid input. Nothing was sent.</summary>
    public const int Usage = 2;
}
