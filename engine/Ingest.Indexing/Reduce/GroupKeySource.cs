namespace Ingest.Indexing.Reduce;

/// <summary>Where a group key's values come from in a document's indexed terms.</summary>
internal enum GroupKeySource
{
    /// <summary>Keyword and bool fields: each distinct term.</summary>
    Terms,

    /// <summary>Number and datetime fields: the first value in document order (the column).</summary>
    First,

    /// <summary>A datetime field's first value, as the start of its time bucket.</summary>
    Bucket,
}
