namespace Ingest.Query.Syntax;

/// <summary>
/// A query that cannot run as written: a syntax error, an unknown field or function, a value of the wrong type, a
/// missing parameter. Always the client's fault (HTTP 400); the message starts with the position,
/// e.g. <c>line 1, col 32: expected a value after '=' but found 'order'</c>.
/// </summary>
public sealed class QueryException : Exception
{
    public QueryException(SourcePosition position, string detail)
        : base($"{position}: {detail}")
    {
        Position = position;
        Detail = detail;
    }

    public QueryException()
    {
    }

    public QueryException(string message)
        : base(message)
    {
    }

    public QueryException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public SourcePosition Position { get; }

    /// <summary>The message without the position.</summary>
    public string Detail { get; } = "";
}
