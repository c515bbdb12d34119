namespace Ingest.Indexing.Storage;

/// <summary>
/// One change of an <see cref="IndexBatch"/>: a put of a document whose terms are
/// <c>[TermStart, TermEnd)</c> of the batch's term buffer, or a delete.
/// </summary>
internal readonly record struct IndexChange(string DocumentId, long Etag, bool IsDelete, int TermStart, int TermEnd);
