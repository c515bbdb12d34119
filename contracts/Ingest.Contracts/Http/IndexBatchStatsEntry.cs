namespace Ingest.Contracts.Http;

/// <summary>An index's batches since the server opened it.</summary>
/// <param name="BatchesClosed">Batches committed.</param>
/// <param name="LastBatchDocuments">Changes in the last committed batch.</param>
/// <param name="PeakBatchMemoryBytes">The most memory one batch's buffers held.</param>
/// <param name="LastBatchAt">When the last batch committed (UTC); null when none has since the server started.</param>
public sealed record IndexBatchStatsEntry(long BatchesClosed, long LastBatchDocuments, long PeakBatchMemoryBytes, DateTime? LastBatchAt);
