using Ingest.Contracts.Http;

namespace Ingest.Server.Expiration;

/// <summary><c>GET /expiration</c>: the task's settings, every collection's rule and the task's progress.</summary>
/// <param name="Interval">How often the task runs.</param>
/// <param name="BatchSize">Documents per transaction.</param>
/// <param name="DeadLettersKeep">How long dead letters are kept, or null (kept).</param>
/// <param name="Rules">The retention rules in force, with where each comes from.</param>
/// <param name="Task">The task's progress, as in <c>/stats</c>.</param>
internal sealed record ExpirationView(string Interval, int BatchSize, string? DeadLettersKeep, IReadOnlyList<ExpirationCollectionEntry> Rules, ExpirationStatsEntry Task);
