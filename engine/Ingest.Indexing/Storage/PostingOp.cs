namespace Ingest.Indexing.Storage;

/// <summary>
/// One (field, term, entry) change of a batch; the term is <see cref="Length"/> bytes at <see cref="Start"/> in the
/// batch's byte arena (a null change has no term bytes). Also used, with the same entry, for one entry's sorted terms.
/// </summary>
internal readonly record struct PostingOp(int Field, int Start, int Length, long Entry, bool IsAddition);
