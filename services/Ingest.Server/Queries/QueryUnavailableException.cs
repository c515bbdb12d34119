namespace Ingest.Server.Queries;

/// <summary>
/// A query that is well formed but cannot be answered now: its index is errored, or did not catch up within the
/// <c>waitForNonStale</c> timeout. Becomes a problem with <see cref="StatusCode"/>, <see cref="Title"/> and the message.
/// </summary>
public sealed class QueryUnavailableException : Exception
{
    public QueryUnavailableException(int statusCode, string title, string detail)
        : base(detail)
    {
        StatusCode = statusCode;
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

    public int StatusCode { get; }

    public string Title { get; }
}
