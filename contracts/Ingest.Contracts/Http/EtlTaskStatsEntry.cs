namespace Ingest.Contracts.Http;

/// <summary>An ETL task in <c>/stats</c>.</summary>
/// <param name="Name">The task's name.</param>
/// <param name="State">"running", "retrying", "errored" or "stopped".</param>
/// <param name="Destination">Where it sends (no credentials).</param>
/// <param name="LastSentEtag">Every change up to here was acknowledged by the broker and is recorded.</param>
/// <param name="LagChanges">Changes (of every collection) after <paramref name="LastSentEtag"/>.</param>
/// <param name="LagSeconds">Age of the oldest change not sent yet; 0 when caught up.</param>
/// <param name="MessagesSent">Messages acknowledged since the server started.</param>
/// <param name="MessagesPerSecond">Messages acknowledged per second over the last 10 seconds.</param>
/// <param name="Errors">Documents in the task's error list (transform failures kept for retry).</param>
/// <param name="LastError">The last delivery failure, or why an errored task stopped; null if none.</param>
public sealed record EtlTaskStatsEntry(
    string Name, string State, string Destination, long LastSentEtag, long LagChanges, double LagSeconds,
    long MessagesSent, double MessagesPerSecond, int Errors, string? LastError);
