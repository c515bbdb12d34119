namespace Ingest.Contracts.Http;

/// <summary>The expiration task in <c>/stats</c> and <c>GET /expiration</c>.</summary>
/// <param name="DocumentsExpired">Documents the task deleted since the server started.</param>
/// <param name="DeadLettersExpired">Dead letters the task deleted since the server started.</param>
/// <param name="LastRun">When the task last finished a run (UTC), or null before its first.</param>
/// <param name="LastError">Why the last run failed, or null.</param>
/// <param name="DueNow">Documents whose expiry has passed and that the task has not deleted yet (reads already skip them).</param>
/// <param name="Expiring">Stored documents that carry an expiry.</param>
/// <param name="Collections">Each collection with a retention rule or with documents the task deleted.</param>
public sealed record ExpirationStatsEntry(
    long DocumentsExpired, long DeadLettersExpired, DateTime? LastRun, string? LastError, long DueNow, long Expiring,
    IReadOnlyList<ExpirationCollectionEntry> Collections);
