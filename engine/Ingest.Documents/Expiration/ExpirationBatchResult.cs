namespace Ingest.Documents.Expiration;

/// <summary>What one expiration batch (one transaction) deleted.</summary>
/// <param name="Deleted">Documents deleted, each with a tombstone like any delete.</param>
/// <param name="More">True when the batch stopped at its size and more documents are due.</param>
/// <param name="ByCollection">Documents deleted per collection (names as written).</param>
public sealed record ExpirationBatchResult(long Deleted, bool More, IReadOnlyDictionary<string, long> ByCollection);
