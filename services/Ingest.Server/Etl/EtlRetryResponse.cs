namespace Ingest.Server.Etl;

/// <summary>The outcome of retrying an error: how many messages were sent (0 when the transform skipped the document or it was deleted since).</summary>
public sealed record EtlRetryResponse(long ErrorId, string DocumentId, int MessagesSent, string Outcome);
