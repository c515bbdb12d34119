namespace Ingest.Server.Queries;

/// <summary>Every query slot was taken and the wait queue full (or the wait outlasted the query's budget): a 429.</summary>
public sealed class QueryRejectedException : Exception
{
    public QueryRejectedException(string message)
        : base(message)
    {
    }

    public QueryRejectedException()
    {
    }

    public QueryRejectedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
