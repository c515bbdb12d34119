namespace Ingest.Server.Sources;

/// <summary>A source reset that was refused or failed; <see cref="Exception.Message"/> says why and what to do.</summary>
public sealed class SourceResetException : Exception
{
    public SourceResetException()
    {
    }

    public SourceResetException(string message)
        : base(message)
    {
    }

    public SourceResetException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public SourceResetException(SourceResetProblem problem, string message, Exception? innerException = null)
        : base(message, innerException) => Problem = problem;

    public SourceResetProblem Problem { get; } = SourceResetProblem.Unavailable;
}
