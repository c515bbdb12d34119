namespace Ingest.Query.AutoIndexes;

/// <summary>
/// A query needs a new automatic index, and its collection already has as many as
/// <see cref="AutoIndexOptions.MaxAutoIndexesPerCollection"/> allows. The server answers 409 with the message.
/// </summary>
public sealed class AutoIndexLimitException : Exception
{
    public AutoIndexLimitException(string collection, string indexName, int existing, int limit)
        : base($"collection '{collection}' has {existing} automatic indexes, the most allowed (Ingest:Queries:MaxAutoIndexesPerCollection = {limit}), so '{indexName}' was not made. Define a static index with the fields your queries need, or delete unused automatic indexes (GET /indexes lists them).")
    {
        Collection = collection;
        IndexName = indexName;
    }

    public AutoIndexLimitException()
        : this("unknown collection")
    {
    }

    public AutoIndexLimitException(string message)
        : base(message)
    {
        Collection = string.Empty;
        IndexName = string.Empty;
    }

    public AutoIndexLimitException(string message, Exception innerException)
        : base(message, innerException)
    {
        Collection = string.Empty;
        IndexName = string.Empty;
    }

    public string Collection { get; }

    /// <summary>The automatic index that would have been made.</summary>
    public string IndexName { get; }
}
