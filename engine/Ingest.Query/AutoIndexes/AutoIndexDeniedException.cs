namespace Ingest.Query.AutoIndexes;

/// <summary>
/// A query that would have to make (or widen) an automatic index was run with
/// <see cref="QueryOptions.MayCreateAutoIndexes"/> off: nothing was made. Says which index, with which fields, the
/// query needs, so whoever may define indexes can make it.
/// </summary>
public sealed class AutoIndexDeniedException : Exception
{
    public AutoIndexDeniedException(string collection, string indexName, IReadOnlyList<string> fields, string? widens)
        : base(
            $"The query needs an index on collection '{collection}' with {(fields.Count == 1 ? "field" : "fields")} {string.Join(", ", fields)}, "
            + (widens is null ? $"which would be made as automatic index '{indexName}'" : $"which would widen automatic index '{widens}' into '{indexName}'")
            + ", and this query may not make one.")
    {
        Collection = collection;
        IndexName = indexName;
        Fields = fields;
        Widens = widens;
    }

    public AutoIndexDeniedException()
    {
        Collection = IndexName = string.Empty;
        Fields = [];
    }

    public AutoIndexDeniedException(string message)
        : base(message)
    {
        Collection = IndexName = string.Empty;
        Fields = [];
    }

    public AutoIndexDeniedException(string message, Exception innerException)
        : base(message, innerException)
    {
        Collection = IndexName = string.Empty;
        Fields = [];
    }

    public string Collection { get; }

    /// <summary>The automatic index the query would have made.</summary>
    public string IndexName { get; }

    /// <summary>Its fields (the query's and those of the automatic index it would widen), by name.</summary>
    public IReadOnlyList<string> Fields { get; }

    /// <summary>The automatic index of the collection it would have replaced by a wider one; null when none.</summary>
    public string? Widens { get; }
}
