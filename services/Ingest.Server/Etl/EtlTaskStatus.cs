namespace Ingest.Server.Etl;

/// <summary>A task's progress and health, for <c>GET /etl/{name}</c>.</summary>
/// <param name="State">Running, retrying, errored or stopped.</param>
/// <param name="Destination">Where it sends (no credentials).</param>
/// <param name="LastSentEtag">Every change up to here was acknowledged by the broker and is recorded.</param>
/// <param name="LastEtag">The store's last etag.</param>
/// <param name="LagChanges">Changes (of every collection) after <paramref name="LastSentEtag"/>.</param>
/// <param name="LagSeconds">Age of the oldest change not sent yet; 0 when caught up.</param>
/// <param name="MessagesSent">Messages acknowledged since the server started.</param>
/// <param name="Errors">Documents in the error list.</param>
/// <param name="LastError">The last delivery failure while retrying.</param>
/// <param name="LastErrorTime">When it happened (UTC).</param>
/// <param name="MessagesPerSecond">Messages acknowledged per second over the last 10 seconds.</param>
public sealed record EtlTaskStatus(
    EtlTaskState State, string Destination, long LastSentEtag, long LastEtag, long LagChanges, double LagSeconds,
    long MessagesSent, int Errors, string? LastError, DateTime? LastErrorTime, double MessagesPerSecond);
