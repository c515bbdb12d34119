namespace Ingest.Query;

/// <summary>
/// A query that is well formed but cannot be answered now: its index is errored, changed while the query started, or
/// did not catch up within the <c>waitForNonStale</c> timeout. <see cref="Title"/> names the condition in a few words,
/// the message says what happened and what to do; trying again later can succeed (a server answers 503).
/// </summary>
public sealed class QueryUnavailableException : Exception
{
    public QueryUnavailableException(string title, string detail)
        : base(detail)
    {
        Title = title;
    }

    public QueryUnavailableException()
    {
        Title = string.Empty;
    }

    public QueryUnavailableException(string message)
        : base(message)
    {
        Title = string.Empty;
    }

    public QueryUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
        Title = string.Empty;
    }

    public string Title { get; }
}
