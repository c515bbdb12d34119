namespace Ingest.Query.Execution;

/// <summary>Where an order key's value comes from.</summary>
internal enum SortKeyKind : byte
{
    /// <summary>A number or datetime field's column: the first value in document order, 8 order-preserving bytes.</summary>
    Column = 0,

    /// <summary>A keyword or bool field: the entry's smallest term, as its rank in the term dictionary.</summary>
    TermRank = 1,

    /// <summary>The document id, folded as the store folds ids, as its rank in the index's id order.</summary>
    IdRank = 2,
}
